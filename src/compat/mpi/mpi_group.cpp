// MPI groups: ordered sets of world ranks (GroupObj::members). Groups are local objects;
// no call here communicates. Empty results are MPI_GROUP_EMPTY, as MPI allows, so
// programs comparing a result against MPI_GROUP_EMPTY see it.
#include <algorithm>
#include <string>
#include <vector>

#include "mpi_impl.hpp"

using namespace interlace;
using namespace interlace::mpi;

namespace {

int index_of(const std::vector<int>& v, int x) {
  auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? MPI_UNDEFINED : static_cast<int>(it - v.begin());
}

bool contains(const std::vector<int>& v, int x) { return index_of(v, x) != MPI_UNDEFINED; }

MPI_Group make_group(std::vector<int> members) {
  if (members.empty()) return MPI_GROUP_EMPTY;
  return state().groups.add(GroupObj{std::move(members)});
}

// Checks n ranks of a group of `size` (in range, no duplicates) for incl/excl.
void check_rank_list(const char* call, int n, const int* ranks, int size) {
  if (n < 0 || n > size)
    raise(MPI_ERR_ARG, std::string(call) + ": n " + std::to_string(n) + " is not between 0 and the group size " +
                           std::to_string(size));
  if (n > 0) need(ranks, call, "ranks");
  std::vector<bool> seen(size, false);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= size)
      raise(MPI_ERR_RANK, std::string(call) + ": ranks[" + std::to_string(i) + "] " + std::to_string(r) +
                              " is not a rank of a group of size " + std::to_string(size));
    if (seen[r])
      raise(MPI_ERR_RANK, std::string(call) + ": rank " + std::to_string(r) + " appears twice in ranks");
    seen[r] = true;
  }
}

// The ranks that n (first, last, stride) triples name, in order (MPI 4.1 7.3.2): first,
// first + stride, ... up to last. Raises naming the bad triple for a zero stride, a
// stride pointing away from last, or an end outside the group; duplicates are left to
// check_rank_list.
std::vector<int> expand_ranges(const char* call, int n, int ranges[][3], int size) {
  if (n < 0) raise(MPI_ERR_ARG, std::string(call) + ": n " + std::to_string(n) + " is negative");
  if (n > 0) need(ranges, call, "ranges");
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    const long long first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    const std::string which = std::string(call) + ": ranges[" + std::to_string(i) + "] = (" +
                              std::to_string(first) + ", " + std::to_string(last) + ", " + std::to_string(stride) + ")";
    if (first < 0 || first >= size || last < 0 || last >= size)
      raise(MPI_ERR_RANK, which + " names a rank outside a group of size " + std::to_string(size));
    if (stride == 0) raise(MPI_ERR_ARG, which + " has stride 0");
    if ((stride > 0 && first > last) || (stride < 0 && first < last))
      raise(MPI_ERR_ARG, which + ": the stride does not lead from first to last");
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (out.size() >= static_cast<size_t>(size))  // more ranks than the group: a repeat
        raise(MPI_ERR_RANK, which + " repeats a rank named before");
      out.push_back(static_cast<int>(r));
    }
  }
  return out;
}

// The new group of Group_incl/excl and their range forms, once the ranks are checked.
MPI_Group included(const std::vector<int>& m, int n, const int* ranks) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(m[ranks[i]]);
  return make_group(std::move(out));
}

MPI_Group excluded(const std::vector<int>& m, int n, const int* ranks) {
  std::vector<bool> drop(m.size(), false);
  for (int i = 0; i < n; ++i) drop[ranks[i]] = true;
  std::vector<int> out;
  for (size_t i = 0; i < m.size(); ++i)
    if (!drop[i]) out.push_back(m[i]);
  return make_group(std::move(out));
}

}  // namespace

extern "C" {

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const char* call = "MPI_Group_range_incl";
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    need(newgroup, call, "newgroup");
    const std::vector<int>& m = group_obj(group).members;
    const std::vector<int> ranks = expand_ranges(call, n, ranges, static_cast<int>(m.size()));
    check_rank_list(call, static_cast<int>(ranks.size()), ranks.data(), static_cast<int>(m.size()));
    *newgroup = included(m, static_cast<int>(ranks.size()), ranks.data());
  });
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const char* call = "MPI_Group_range_excl";
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    need(newgroup, call, "newgroup");
    const std::vector<int>& m = group_obj(group).members;
    const std::vector<int> ranks = expand_ranges(call, n, ranges, static_cast<int>(m.size()));
    check_rank_list(call, static_cast<int>(ranks.size()), ranks.data(), static_cast<int>(m.size()));
    *newgroup = excluded(m, static_cast<int>(ranks.size()), ranks.data());
  });
}

int MPI_Group_size(MPI_Group group, int* size) {
  return guard("MPI_Group_size", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_size");
    need(size, "MPI_Group_size", "size");
    *size = static_cast<int>(group_obj(group).members.size());
  });
}

int MPI_Group_rank(MPI_Group group, int* rank) {
  return guard("MPI_Group_rank", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_rank");
    need(rank, "MPI_Group_rank", "rank");
    *rank = index_of(group_obj(group).members, comm_of(MPI_COMM_WORLD).rank());
  });
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return guard("MPI_Group_incl", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_incl");
    need(newgroup, "MPI_Group_incl", "newgroup");
    const std::vector<int>& m = group_obj(group).members;
    check_rank_list("MPI_Group_incl", n, ranks, static_cast<int>(m.size()));
    *newgroup = included(m, n, ranks);
  });
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return guard("MPI_Group_excl", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_excl");
    need(newgroup, "MPI_Group_excl", "newgroup");
    const std::vector<int>& m = group_obj(group).members;
    check_rank_list("MPI_Group_excl", n, ranks, static_cast<int>(m.size()));
    *newgroup = excluded(m, n, ranks);
  });
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return guard("MPI_Group_union", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_union");
    need(newgroup, "MPI_Group_union", "newgroup");
    std::vector<int> out = group_obj(group1).members;  // group1's order, then group2's new members
    for (int w : group_obj(group2).members)
      if (!contains(out, w)) out.push_back(w);
    *newgroup = make_group(std::move(out));
  });
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return guard("MPI_Group_intersection", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_intersection");
    need(newgroup, "MPI_Group_intersection", "newgroup");
    const std::vector<int>& b = group_obj(group2).members;
    std::vector<int> out;
    for (int w : group_obj(group1).members)
      if (contains(b, w)) out.push_back(w);
    *newgroup = make_group(std::move(out));
  });
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return guard("MPI_Group_difference", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_difference");
    need(newgroup, "MPI_Group_difference", "newgroup");
    const std::vector<int>& b = group_obj(group2).members;
    std::vector<int> out;
    for (int w : group_obj(group1).members)
      if (!contains(b, w)) out.push_back(w);
    *newgroup = make_group(std::move(out));
  });
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  return guard("MPI_Group_compare", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_compare");
    need(result, "MPI_Group_compare", "result");
    const std::vector<int>& a = group_obj(group1).members;
    const std::vector<int>& b = group_obj(group2).members;
    if (a == b) {
      *result = MPI_IDENT;
      return;
    }
    std::vector<int> sa = a, sb = b;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    *result = sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
  });
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  return guard("MPI_Group_translate_ranks", MPI_COMM_NULL, [&] {
    const char* call = "MPI_Group_translate_ranks";
    require_initialized(call);
    const std::vector<int>& a = group_obj(group1).members;
    const std::vector<int>& b = group_obj(group2).members;
    if (n < 0) raise(MPI_ERR_ARG, std::string(call) + ": n " + std::to_string(n) + " is negative");
    if (n > 0) {
      need(ranks1, call, "ranks1");
      need(ranks2, call, "ranks2");
    }
    for (int i = 0; i < n; ++i) {
      const int r = ranks1[i];
      if (r == MPI_PROC_NULL) continue;
      if (r < 0 || r >= static_cast<int>(a.size()))
        raise(MPI_ERR_RANK, std::string(call) + ": ranks1[" + std::to_string(i) + "] " + std::to_string(r) +
                                " is not a rank of group1 (size " + std::to_string(a.size()) + ")");
    }
    for (int i = 0; i < n; ++i)
      ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL : index_of(b, a[ranks1[i]]);
  });
}

int MPI_Group_free(MPI_Group* group) {
  return guard("MPI_Group_free", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Group_free");
    need(group, "MPI_Group_free", "group");
    group_obj(*group);  // MPI_ERR_GROUP for a null or freed handle
    if (*group != MPI_GROUP_EMPTY) state().groups.remove(*group);  // the predefined one stays
    *group = MPI_GROUP_NULL;
  });
}

}  // extern "C"
