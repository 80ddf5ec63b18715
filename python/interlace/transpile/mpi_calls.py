"""Which MPI calls the transpiler handles, and the C meaning of the predefined
datatypes and reduction operators the expansions need."""
from __future__ import annotations

# Kept as they are in every variant (the accelerator ranks of ZRLMPI speak
# exactly these; MPI_Wtime and MPI_Abort are local).
KEPT = frozenset({
    "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Comm_rank", "MPI_Comm_size",
    "MPI_Send", "MPI_Recv", "MPI_Wtime", "MPI_Abort",
})
# Replaced by sends and receives (collectives.py).
EXPANDED = ("MPI_Scatter", "MPI_Gather", "MPI_Bcast", "MPI_Reduce", "MPI_Barrier")

ARGS = {"MPI_Scatter": 8, "MPI_Gather": 8, "MPI_Bcast": 5, "MPI_Reduce": 7,
        "MPI_Barrier": 1}

# datatype -> C type of one element.
CTYPES = {
    "MPI_CHAR": "char", "MPI_SIGNED_CHAR": "signed char", "MPI_UNSIGNED_CHAR": "unsigned char",
    "MPI_BYTE": "unsigned char", "MPI_SHORT": "short", "MPI_UNSIGNED_SHORT": "unsigned short",
    "MPI_INT": "int", "MPI_UNSIGNED": "unsigned", "MPI_LONG": "long",
    "MPI_UNSIGNED_LONG": "unsigned long", "MPI_LONG_LONG": "long long",
    "MPI_LONG_LONG_INT": "long long", "MPI_UNSIGNED_LONG_LONG": "unsigned long long",
    "MPI_FLOAT": "float", "MPI_DOUBLE": "double", "MPI_LONG_DOUBLE": "long double",
    "MPI_INT8_T": "int8_t", "MPI_INT16_T": "int16_t", "MPI_INT32_T": "int32_t",
    "MPI_INT64_T": "int64_t", "MPI_UINT8_T": "uint8_t", "MPI_UINT16_T": "uint16_t",
    "MPI_UINT32_T": "uint32_t", "MPI_UINT64_T": "uint64_t", "MPI_C_BOOL": "_Bool",
}
_FLOATING = {"float", "double", "long double"}

# operator -> C expression combining a and b (element values).
OPS = {
    "MPI_SUM": "{a} + {b}", "MPI_PROD": "{a} * {b}",
    "MPI_MAX": "({a} > {b} ? {a} : {b})", "MPI_MIN": "({a} < {b} ? {a} : {b})",
    "MPI_LAND": "{a} && {b}", "MPI_LOR": "{a} || {b}", "MPI_LXOR": "!{a} != !{b}",
    "MPI_BAND": "{a} & {b}", "MPI_BOR": "{a} | {b}", "MPI_BXOR": "{a} ^ {b}",
}
_INTEGER_ONLY = {"MPI_BAND", "MPI_BOR", "MPI_BXOR"}


def op_valid_for(op: str, ctype: str) -> bool:
    return not (op in _INTEGER_ONLY and ctype in _FLOATING)


# Tags of the expanded collectives' messages: above what programs use in
# practice, and distinct per collective so a reader of a trace can tell them
# apart. A program using them itself is rejected (it could match ours).
TAG_BASE = 0x7ff0
TAGS = {name: TAG_BASE + i for i, name in enumerate(EXPANDED)}
