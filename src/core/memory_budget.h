// MemoryBudget: one session's host memory, counted and capped (SessionOptions::memory_limit).
//
// Tensor storage allocated by a thread inside a MemoryBudgetScope is charged to that budget and
// credited back when the storage is freed, whichever thread frees it: a session's weights,
// folded constants and cached arenas stay charged for as long as it holds them, and a run's
// outputs until the caller drops them. A charge that would pass the limit throws OutOfMemory
// before anything is allocated. Storage allocated with no scope (a caller's input tensors) is
// charged to nobody.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

namespace hi {

class MemoryBudget {
 public:
  // A budget with a parent also charges the parent: a limit inside a limit.
  explicit MemoryBudget(int64_t limit, std::shared_ptr<MemoryBudget> parent = nullptr)
      : limit_(limit), parent_(std::move(parent)) {}
  int64_t limit() const { return limit_; }  // 0: none of its own (the host memory limit caps it)
  int64_t used() const { return used_.load(); }
  int64_t peak() const { return peak_.load(); }
  // Throws OutOfMemory naming the limit when `bytes` more would pass it.
  void charge(int64_t bytes);
  void credit(int64_t bytes);

 private:
  int64_t limit_;
  std::shared_ptr<MemoryBudget> parent_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
};

// Charges this thread's tensor allocations to `budget` (null: to none) until it ends; scopes nest.
class MemoryBudgetScope {
 public:
  explicit MemoryBudgetScope(std::shared_ptr<MemoryBudget> budget);
  ~MemoryBudgetScope();
  MemoryBudgetScope(const MemoryBudgetScope&) = delete;
  MemoryBudgetScope& operator=(const MemoryBudgetScope&) = delete;

 private:
  std::shared_ptr<MemoryBudget> previous_;
};

// Scratch memory a kernel is about to hold outside tensors (index maps, per-position caches),
// charged to this thread's budget while the object lives, or checked against the host memory
// limit where there is none: a hostile shape then fails with OutOfMemory before the kernel
// builds a vector the size of its output. Throws OutOfMemory.
class ScratchBytes {
 public:
  explicit ScratchBytes(int64_t bytes);
  ~ScratchBytes();
  ScratchBytes(const ScratchBytes&) = delete;
  ScratchBytes& operator=(const ScratchBytes&) = delete;

 private:
  int64_t bytes_;
  std::shared_ptr<MemoryBudget> budget_;
};

// Scratch that grows (a Loop's scan output, one iteration at a time), charged like ScratchBytes
// as it grows and credited whole when released or destroyed. Throws OutOfMemory from grow().
class ScratchReservation {
 public:
  ScratchReservation() = default;
  ~ScratchReservation() { release(); }
  ScratchReservation(ScratchReservation&& other) noexcept
      : bytes_(std::exchange(other.bytes_, 0)), budget_(std::move(other.budget_)) {}
  ScratchReservation& operator=(ScratchReservation&& other) noexcept {
    if (this != &other) {
      release();
      bytes_ = std::exchange(other.bytes_, 0);
      budget_ = std::move(other.budget_);
    }
    return *this;
  }
  void grow(int64_t bytes);
  void release();
  int64_t bytes() const { return bytes_; }

 private:
  int64_t bytes_ = 0;
  std::shared_ptr<MemoryBudget> budget_;  // the budget of the thread that first grew it
};

// The budget this thread's allocations are charged to, or null.
const std::shared_ptr<MemoryBudget>& current_memory_budget();

}  // namespace hi
