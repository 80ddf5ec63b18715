"""Two network namespaces joined by one veth pair, with random loss by nftables: the
"network" of bench/run_udp.py.

Both ends of the pair are called IFACE inside their namespaces, so that one setting
(INTERLACE_TCP_ADDR=bench0, btl_tcp_if_include=bench0) names the right interface on both
"hosts".

Segmentation offload is off by default (gso_max_segs 1): veth otherwise hands TCP's
64 KiB GSO super-packets across whole, and a rule that drops 10% of *packets* would then
drop 10% of 45-frame bursts for TCP but 10% of single frames for UDP. With it off every
packet on the link is at most one MTU-sized frame, as on a wire, and loss means the same
thing for every transport.
"""
import re
import subprocess

IFACE = "bench0"


def sh(*cmd, check=True, input=None):
    return subprocess.run([str(c) for c in cmd], check=check, capture_output=True, text=True,
                          input=input)


class Link:
    def __init__(self, prefix="bench", subnet="10.79.0", offload=False):
        self.ns = [f"{prefix}-ns1", f"{prefix}-ns2"]
        self.addr = [f"{subnet}.1", f"{subnet}.2"]
        self.offload = offload
        self.loss_pct = 0.0
        self.both = True

    def up(self):
        self.down()  # a namespace left over by a killed run would make `add` fail
        for ns in self.ns:
            sh("ip", "netns", "add", ns)
        tmp = [f"{self.ns[0][:8]}-x1", f"{self.ns[0][:8]}-x2"]  # unique in the root namespace
        sh("ip", "link", "add", tmp[0], "netns", self.ns[0], "type", "veth", "peer", "name", tmp[1],
           "netns", self.ns[1])
        for ns, t, a in zip(self.ns, tmp, self.addr):
            sh("ip", "-n", ns, "link", "set", t, "name", IFACE)
            sh("ip", "-n", ns, "addr", "add", f"{a}/24", "dev", IFACE)
            if not self.offload:
                sh("ip", "-n", ns, "link", "set", IFACE, "gso_max_segs", "1")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "link", "set", IFACE, "up")
        self.set_loss(0.0)

    def down(self):
        for ns in self.ns:
            sh("ip", "netns", "del", ns, check=False)  # the veth pair goes with it

    def set_loss(self, pct, both=True):
        """Drops pct% of the packets arriving over the link, chosen at random: in both
        namespaces (both=True, a lossy link: data and acknowledgements are lost alike) or
        only in the second (rank 1's input: the data of a ping-pong's first half and of a
        stream). The counting rule stays at 0% too, so every run pays the same filter."""
        self.loss_pct, self.both = pct, both
        per_mille = int(round(pct * 10))
        for i, ns in enumerate(self.ns):
            drop = per_mille if (both or i == 1) else 0
            rules = [f'iifname "{IFACE}" counter']
            if drop:
                rules.append(f'iifname "{IFACE}" numgen random mod 1000 < {drop} counter drop')
            body = "\n".join(rules)
            script = (f"table inet bench\ndelete table inet bench\n"
                      f"table inet bench {{\n chain in {{\n  type filter hook input priority 0;\n"
                      f"  {body}\n }}\n}}\n")
            sh("ip", "netns", "exec", ns, "nft", "-f", "-", input=script)

    def counters(self):
        """{ns: (packets seen, packets dropped)} since set_loss (the callers subtract:
        `nft reset counters` resets named counters only, not those of rules)."""
        out = {}
        for ns in self.ns:
            text = sh("ip", "netns", "exec", ns, "nft", "list", "table", "inet", "bench").stdout
            c = [int(x) for x in re.findall(r"counter packets (\d+)", text)]
            out[ns] = (c[0] if c else 0, c[1] if len(c) > 1 else 0)
        return out

    def snmp(self):
        """{ns: {"Tcp.RetransSegs": n, "Udp.RcvbufErrors": n, ...}}: the kernel's protocol
        counters, to tell retransmissions and socket-buffer overflows apart from link loss."""
        out = {}
        for ns in self.ns:
            lines = sh("ip", "netns", "exec", ns, "cat", "/proc/net/snmp").stdout.splitlines()
            vals = {}
            for head, row in zip(lines[::2], lines[1::2]):
                proto, names = head.split(":", 1)
                for k, v in zip(names.split(), row.split(":", 1)[1].split()):
                    vals[f"{proto}.{k}"] = int(v)
            out[ns] = vals
        return out
