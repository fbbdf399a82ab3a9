// The hosts of the Slurm allocation the launcher runs in (salloc, sbatch, or
// a step of one), read from the environment Slurm gives the job, as Open
// MPI's ras/slurm and MPICH's hydra read it:
//   SLURM_JOB_ID         set: we are inside an allocation;
//   SLURM_JOB_NODELIST   the nodes, a hostlist expression ("n[01-03,07],gpu1");
//                        SLURM_NODELIST, its older name, when it is not set;
//   SLURM_TASKS_PER_NODE the tasks on each node, in the same order, run-length
//                        encoded ("2(x3),1" is 2,2,2,1): the slots per host.
//
//   if (in_slurm_allocation()) {
//     LZ_ASSIGN_OR_RETURN(std::vector<HostEntry> hosts, slurm_allocation_hosts());
//   }
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launcher/host_list.h"
#include "lazarus/status.h"

namespace lz::launcher {

// Whether SLURM_JOB_ID is set (and not empty).
bool in_slurm_allocation();

// The allocation's name for this process's job: SLURM_JOB_ID, with
// ".SLURM_STEP_ID" inside a step (srun); empty outside an allocation.
std::string slurm_job_name();

// Expands a Slurm hostlist expression: comma-separated names, each with
// bracketed ranges and lists ("n[1-3,05]x" gives n1x, n2x, n3x, n05x; the
// width of a range's first bound is kept, "n[08-10]" gives n08, n09, n10),
// several brackets in one name multiplying out. kInvalidArgument on an
// unbalanced bracket, an empty or reversed range, or a non-number in one.
StatusOr<std::vector<std::string>> expand_hostlist(std::string_view expr);

// Expands SLURM_TASKS_PER_NODE's form: "N" or "N(xM)" items, comma-separated.
StatusOr<std::vector<int>> expand_tasks_per_node(std::string_view expr);

// The allocation's hosts with their slots (tasks per node; one each when
// SLURM_TASKS_PER_NODE is missing). kUnavailable outside an
// allocation; kInvalidArgument naming the variable when one cannot be read
// or the two lists differ in length.
StatusOr<std::vector<HostEntry>> slurm_allocation_hosts();

}  // namespace lz::launcher
