// A plan of the fixed-order model as one decision per gap (stage_dag.h), with the memory and
// recomputation cost of every stage kept up to date as decisions change (the search's incremental
// evaluator, in the spirit of FastSA's, but in the fixed order).
//
// The decision of gap (v, lo, hi) is a pair: its *hold* a and its *resume* r, lo <= a, r <= hi: v is
// resident on entry to stages lo+1..a, freed, recomputed in stage r and resident on entry to stages
// r+1..hi. r = lo (or a >= r) keeps v through the gap; r = hi recomputes it for the read at hi.
// Recomputing v earlier than hi is what makes a drop cheap: its inputs may still be resident then,
// which holds (on tail gaps too) can arrange. A tail gap never resumes (r = n).
//
// Stage t runs the recomputations it needs, in graph order, then node t. What it needs: node t, the
// values whose gaps resume at t, and recursively every input of a needed node that is not resident
// on entry to the stage. A recomputed value is freed after its last read in the stage unless it is
// resident in the next stage; resident values leave after their gap ends. So the stage's peak is the resident bytes on entry plus the running
// sum of what it recomputes, and the plan's compute sequence, with frees after last use
// (insert_frees), has exactly this memory on single-output DAGs (tests compare with simulate()).
//
// Moving a gap's resume from r0 to r changes only stages min(r0, r)..max(r0, r): only those are
// evaluated again. Every change is journalled, so a trial can be undone.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "hiremate/schedule/schedule.h"
#include "hiremate/solvers/dagremat/stage_dag.h"

namespace hiremate::dagremat {

class KeepState {
 public:
  // All gaps kept (the keep-all plan). `cap`: the budget minus the sources.
  KeepState(const StageDag& dag, int64_t cap);

  const StageDag& dag() const { return dag_; }
  int64_t cap() const { return cap_; }
  struct Decision {
    int hold, resume;
    friend bool operator==(const Decision& a, const Decision& b) { return a.hold == b.hold && a.resume == b.resume; }
  };
  int resume(int gap) const { return dec_[gap].resume; }
  int hold(int gap) const { return dec_[gap].hold; }
  // Resident through the whole gap (no recomputation for it).
  bool kept(int gap) const { return dec_[gap].hold >= dec_[gap].resume; }
  const std::vector<Decision>& decisions() const { return dec_; }
  // Resident on entry to stage t (value < t).
  bool resident(int value, int t) const;
  // The latest stage u <= t at whose entry `value` is resident, or -1 (jumps over whole gaps and
  // drops instead of testing stage by stage).
  int latest_resident(int value, int t) const;

  // Sets a gap's decision and evaluates the stages it touches. A kept gap is stored as (lo, lo).
  void set(int gap, int hold, int resume);
  void set(int gap, int resume) { set(gap, dec_[gap].hold, resume); }
  // As set(), but evaluates only the touched stages up to `last`: later ones keep their old peak and
  // cost (and the totals with them) until refresh(). For a search that moves forward through the
  // stages and refreshes each one it reaches (the eviction sweep); rollback() undoes it as a set().
  void set_through(int gap, int hold, int resume, int last);
  // As set(), for a decision under which no computation reads the value at a stage whose entry
  // residency changes, other than the gap's own ends and resumes (the caller's guarantee: a one-op
  // drop whose value nothing else recomputes from there, a hold of a value read there by none):
  // those stages' peaks move by the value's bytes instead of being evaluated again (on a 20,000-node
  // dense DAG a gap spans thousands of stages); the ends and resumes are evaluated.
  void set_inert(int gap, int hold, int resume);
  // Another cap for the same decisions (the budget ladder's rungs): only the excess changes. Clears
  // the journal (a rollback past it would mix caps).
  void set_cap(int64_t cap);
  // Evaluates stage t again.
  void refresh(int t) { store(t, evaluate(t)); }
  // Sets every decision at once (evaluates every stage); clears the journal.
  void assign(const std::vector<Decision>& decisions);

  double recompute_cost() const { return recompute_cost_; }  // time beyond one run of every node
  int64_t excess() const { return excess_; }  // sum over stages of the bytes above the cap
  int64_t stage_peak(int t) const { return peak_[t]; }
  const std::vector<int64_t>& stage_peaks() const { return peak_; }
  double stage_cost(int t) const { return cost_[t]; }
  int worst_stage() const;  // the stage furthest above the cap, or -1 when none is

  // A point in the journal to return to; rollback undoes every set() since.
  size_t mark() const { return journal_.size(); }
  void rollback(size_t mark);
  void commit() { journal_.clear(); }  // forget the journal (what is set stays)

  // The plan's compute sequence (stage by stage).
  std::vector<Op> ops() const;
  // The positions stage t computes, in order (its recomputations, then t).
  std::vector<int> stage_ops(int t) const;

 private:
  struct Eval {
    double cost;
    int64_t peak;
  };
  Eval evaluate(int t) const;
  void store(int t, Eval e);  // updates totals, journals the old values
  void move(int gap, Decision d);  // the decision and the entry bytes of the stages it covers
  std::pair<int, int> changed(int gap, Decision a, Decision b) const;  // the stages to evaluate again
  bool resident_with(int gap, Decision d, int t) const;

  const StageDag& dag_;
  int64_t cap_;
  std::vector<Decision> dec_;
  std::vector<std::vector<int>> resume_at_;  // stage -> gaps resuming there strictly inside (lo, hi)
  std::vector<int64_t> base_;  // bytes resident on entry to each stage
  std::vector<double> cost_;
  std::vector<int64_t> peak_;
  double recompute_cost_ = 0;
  int64_t excess_ = 0;

  struct Entry {
    int gap;  // >= 0: a move, `old` the old decision; -1: stage t's old values
    int t;
    Decision old;
    double cost;
    int64_t peak;
  };
  std::vector<Entry> journal_;

  // Residency on entry to every stage, one bit per (value, stage), where n^2 bits fit in
  // kResidencyBitsMax (64 MiB: up to about 23,000 nodes): resident() is the sweep's and evaluate()'s
  // innermost test, and as a search in the value's users it took 40 % of the sweep's time on a
  // 5,000-node dense DAG. Above that size, the search.
  static constexpr int64_t kResidencyBitsMax = int64_t{1} << 29;
  int words_ = 0;
  std::vector<uint64_t> bits_;
  bool bit(int v, int t) const {
    return (bits_[static_cast<size_t>(v) * static_cast<size_t>(words_) + static_cast<size_t>(t >> 6)] >> (t & 63)) & 1;
  }
  void set_bit(int v, int t, bool on) {
    uint64_t& w = bits_[static_cast<size_t>(v) * static_cast<size_t>(words_) + static_cast<size_t>(t >> 6)];
    const uint64_t mask = uint64_t{1} << (t & 63);
    w = on ? (w | mask) : (w & ~mask);
  }

  // Scratch for evaluate().
  mutable std::vector<int> stamp_, last_read_, list_;
  mutable int clock_ = 0;
};

}  // namespace hiremate::dagremat
