// Kernel execution on the emulated GPU. A launch's blocks are taken one at a time by the calling
// host thread and the pool's threads; a block's threads are fibers on the host thread that took
// it. The scheduler resumes every runnable thread of the block in the profile's order; each runs
// until it returns, waits at __syncthreads(), or waits at a warp collective. Then it releases
// whichever barrier every thread concerned has reached, or reports why none can be: a barrier
// that some threads reach after others returned, a warp collective missing lanes. So a missing or divergent barrier is
// an error naming the kernel, not a hang.
#include "backends/gpu/emu/scheduler.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "backends/gpu/emu/fiber.h"

namespace hi::gpu::emu {

thread_local ThreadContext* current_thread = nullptr;

namespace {

constexpr size_t kFiberStack = 64 * 1024;
constexpr size_t kWarpScratch = 4 * 1024;  // bytes a warp's collectives exchange through
constexpr int kMaxThreads = 1024;

enum class State : uint8_t { kReady, kAtBarrier, kAtWarpBarrier, kDone, kFaulted };

// "(x,y,z)". Formatted with snprintf: GCC 12 at -O3 warns (-Wrestrict, falsely) on the chain of
// string additions.
std::string dims(unsigned x, unsigned y, unsigned z) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "(%u,%u,%u)", x, y, z);
  return buf;
}
std::string dims(UInt3 d) { return dims(d.x, d.y, d.z); }
std::string dims(Dim3 d) { return dims(d.x, d.y, d.z); }

}  // namespace

// One block at a time on one host thread; the fibers and buffers are kept for the next block.
class BlockRun {
 public:
  // Runs block `index` of the launch; false with *error set when it fails.
  bool run(const KernelLaunch& launch, UInt3 index, const DeviceProfile& device, uint64_t seed, std::string* error);

  void wait(State at) {
    const int i = current_thread->linear;
    state_[i] = at;
    fibers_[i].suspend();
  }
  [[noreturn]] void fault(const char* what) {
    const int i = current_thread->linear;
    fault_ = what;
    state_[i] = State::kFaulted;
    fibers_[i].suspend();
    __builtin_unreachable();
  }
  void* dynamic_shared() { return dynamic_shared_.data(); }
  void* warp_scratch() {
    return warp_scratch_.data() + current_thread->linear / current_thread->warp_size * kWarpScratch;
  }
  const KernelLaunch* launch() const { return launch_; }

 private:
  HI_EMU_NO_TSAN static void thread_main(void* arg);  // fiber.h says why
  bool release_barriers(int n, int warp_size, std::string* why);

  std::unique_ptr<Fiber[]> fibers_ = std::make_unique<Fiber[]>(kMaxThreads);
  std::vector<ThreadContext> contexts_ = std::vector<ThreadContext>(kMaxThreads);
  std::vector<State> state_ = std::vector<State>(kMaxThreads);
  std::vector<int> order_;
  std::vector<unsigned char> dynamic_shared_;
  std::vector<unsigned char> warp_scratch_ = std::vector<unsigned char>(kMaxThreads / 32 * kWarpScratch);
  const KernelLaunch* launch_ = nullptr;
  int current_ = 0;
  const char* fault_ = nullptr;
};

HI_EMU_NO_TSAN void BlockRun::thread_main(void* arg) {
  auto* self = static_cast<BlockRun*>(arg);
  self->launch_->body();
  self->state_[self->current_] = State::kDone;
  self->fibers_[self->current_].suspend();  // never resumed: the next block resets the fiber
  __builtin_unreachable();
}

bool BlockRun::run(const KernelLaunch& launch, UInt3 index, const DeviceProfile& device, uint64_t seed,
                   std::string* error) {
  launch_ = &launch;
  const Dim3 b = launch.block;
  const int n = static_cast<int>(b.x * b.y * b.z);
  for (int i = 0; i < n; ++i) {
    ThreadContext& t = contexts_[i];
    t.thread_idx = UInt3{i % b.x, i / b.x % b.y, i / (b.x * b.y)};
    t.block_idx = index;
    t.block_dim = b;
    t.grid_dim = launch.grid;
    t.linear = i;
    t.warp_size = device.warp_size;
    t.block = this;
    state_[i] = State::kReady;
    fibers_[i].reset(kFiberStack, &BlockRun::thread_main, this);
  }
  // Unwritten shared memory reads as NaN (float32 and float16) or -1.
  dynamic_shared_.assign(launch.dynamic_shared_bytes, 0xFF);
  std::fill(warp_scratch_.begin(), warp_scratch_.end(), 0xFF);
  order_.resize(n);
  std::mt19937_64 rng(seed);
  const std::string where = "kernel '" + std::string(launch.name) + "', block " + dims(index);
  for (;;) {
    for (int i = 0; i < n; ++i) order_[i] = i;
    if (device.schedule == Schedule::kReverse) std::reverse(order_.begin(), order_.end());
    if (device.schedule == Schedule::kShuffle) std::shuffle(order_.begin(), order_.end(), rng);
    for (int i : order_) {
      if (state_[i] != State::kReady) continue;
      current_ = i;
      current_thread = &contexts_[i];
      fibers_[i].resume();
      current_thread = nullptr;
      if (state_[i] == State::kFaulted) {
        *error = where + ", thread " + dims(contexts_[i].thread_idx) + ": " + fault_;
        return false;
      }
    }
    std::string why;
    if (!release_barriers(n, device.warp_size, &why)) {
      if (why.empty()) return true;  // every thread returned
      *error = where + ": " + why;
      return false;
    }
  }
}

// After a round in which no thread can run on: releases every warp whose live lanes all wait at
// one warp collective, or else the block barrier when every live thread waits at it. False with
// *why empty when all threads returned, with *why set when no barrier can be released.
bool BlockRun::release_barriers(int n, int warp_size, std::string* why) {
  int done = 0, at_block = 0, at_warp = 0;
  for (int i = 0; i < n; ++i) {
    done += state_[i] == State::kDone;
    at_block += state_[i] == State::kAtBarrier;
    at_warp += state_[i] == State::kAtWarpBarrier;
  }
  if (done == n) return false;
  bool released = false;
  for (int lo = 0; at_warp > 0 && lo < n; lo += warp_size) {
    const int hi = std::min(n, lo + warp_size);
    int waiting = 0, exited = 0;
    for (int i = lo; i < hi; ++i) {
      if (state_[i] != State::kAtWarpBarrier) {
        exited += state_[i] == State::kDone;
        continue;
      }
      ++waiting;
    }
    if (waiting == 0 || waiting + exited < hi - lo) continue;  // lanes still at a block barrier
    if (exited > 0) {
      *why = "a warp collective reached by " + std::to_string(waiting) + " of the " + std::to_string(hi - lo) +
             " lanes of warp " + std::to_string(lo / warp_size) + " (the others had returned)";
      return false;
    }
    for (int i = lo; i < hi; ++i) state_[i] = State::kReady;
    released = true;
  }
  if (released) return true;
  if (at_block == 0) {
    *why = "a warp collective cannot complete: lanes of its warp wait at __syncthreads()";
    return false;
  }
  if (at_block + done < n) {
    *why = std::to_string(at_block) + " threads wait at __syncthreads() while " + std::to_string(at_warp) +
           " wait at a warp collective";
    return false;
  }
  if (done > 0) {
    *why = "__syncthreads() reached by " + std::to_string(at_block) + " of " + std::to_string(n) +
           " threads; the other " + std::to_string(done) + " had returned";
    return false;
  }
  for (int i = 0; i < n; ++i) state_[i] = State::kReady;
  return true;
}

namespace {

thread_local BlockRun* this_host_block_run = nullptr;

BlockRun& block_run() {
  if (!this_host_block_run) this_host_block_run = new BlockRun();  // kept for the thread's life
  return *this_host_block_run;
}

// Blocks of one launch, shared out between the caller and the pool's threads.
struct Job {
  const KernelLaunch* launch = nullptr;
  const DeviceProfile* device = nullptr;
  uint64_t blocks = 0, seed = 0;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::condition_variable idle;
  int active = 0;       // pool threads inside work()
  bool closed = false;  // the caller is done: late pool threads leave without touching launch
  std::string error;

  void work() {
    BlockRun& run = block_run();
    const Dim3 g = launch->grid;
    for (;;) {
      const uint64_t i = next.fetch_add(1);
      if (i >= blocks || failed.load()) return;
      const UInt3 index{static_cast<unsigned>(i % g.x), static_cast<unsigned>(i / g.x % g.y),
                        static_cast<unsigned>(i / (uint64_t{g.x} * g.y))};
      std::string e;
      if (!run.run(*launch, index, *device, seed ^ (i * 0x9E3779B97F4A7C15ull), &e)) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failed.exchange(true)) error = e;
      }
    }
  }
};

class Pool {
 public:
  explicit Pool(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
  }
  int size() const { return static_cast<int>(threads_.size()); }
  void submit(std::shared_ptr<Job> job, int copies) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int i = 0; i < copies; ++i) queue_.push_back(job);
    }
    ready_.notify_all();
  }

 private:
  void loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return !queue_.empty(); });
        job = std::move(queue_.front());
        queue_.erase(queue_.begin());
      }
      {
        std::lock_guard<std::mutex> lock(job->mutex);
        if (job->closed) continue;
        ++job->active;
      }
      job->work();
      std::lock_guard<std::mutex> lock(job->mutex);
      if (--job->active == 0) job->idle.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::shared_ptr<Job>> queue_;
  std::vector<std::thread> threads_;  // detached at exit: never joined (the process may end mid-launch)
};

Pool& pool(int host_threads) {
  static Pool* p = new Pool(std::max(0, host_threads - 1));
  return *p;
}

std::atomic<uint64_t> launch_counter{0};

cudaError_t check_limits(const KernelLaunch& k, const DeviceProfile& d, std::string* message) {
  const std::string name = "kernel '" + std::string(k.name) + "': ";
  const uint64_t threads = uint64_t{k.block.x} * k.block.y * k.block.z;
  if (threads == 0 || k.grid.x == 0 || k.grid.y == 0 || k.grid.z == 0) {
    *message = name + "empty launch, grid " + dims(k.grid) + " x block " + dims(k.block);
    return cudaErrorInvalidConfiguration;
  }
  const unsigned block[3] = {k.block.x, k.block.y, k.block.z}, grid[3] = {k.grid.x, k.grid.y, k.grid.z};
  for (int a = 0; a < 3; ++a) {
    if (block[a] > static_cast<unsigned>(d.max_block_dim[a])) {
      *message = name + "block " + dims(k.block) + ": dimension " + "xyz"[a] + " exceeds the device's " +
                 std::to_string(d.max_block_dim[a]);
      return cudaErrorInvalidConfiguration;
    }
    if (grid[a] > d.max_grid_dim[a]) {
      *message = name + "grid " + dims(k.grid) + ": dimension " + "xyz"[a] + " exceeds the device's " +
                 std::to_string(d.max_grid_dim[a]);
      return cudaErrorInvalidConfiguration;
    }
  }
  if (threads > static_cast<uint64_t>(d.max_threads_per_block)) {
    *message = name + std::to_string(threads) + " threads a block, the device allows " +
               std::to_string(d.max_threads_per_block);
    return cudaErrorInvalidConfiguration;
  }
  if (k.dynamic_shared_bytes > d.shared_bytes_per_block) {
    *message = name + std::to_string(k.dynamic_shared_bytes) + " bytes of dynamic shared memory, the device allows " +
               std::to_string(d.shared_bytes_per_block);
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t run_kernel(const KernelLaunch& launch, const DeviceProfile& device, std::string* message) {
  if (const cudaError_t e = check_limits(launch, device, message); e != cudaSuccess) return e;
  auto job = std::make_shared<Job>();
  job->launch = &launch;
  job->device = &device;
  job->blocks = uint64_t{launch.grid.x} * launch.grid.y * launch.grid.z;
  job->seed = launch_counter.fetch_add(1) * 0xD1B54A32D192ED03ull;
  Pool& p = pool(device.host_threads);
  const int helpers = static_cast<int>(std::min<uint64_t>(p.size(), job->blocks - 1));
  if (helpers > 0) p.submit(job, helpers);
  job->work();
  std::unique_lock<std::mutex> lock(job->mutex);
  job->closed = true;
  job->idle.wait(lock, [&] { return job->active == 0; });
  if (!job->failed.load()) return cudaSuccess;
  *message = "emulated GPU: " + job->error;
  return cudaErrorLaunchFailure;
}

void describe_current_thread(char* out, size_t size) {
  const ThreadContext* t = current_thread;
  if (!t || !t->block || !t->block->launch()) {
    if (size) out[0] = 0;
    return;
  }
  std::snprintf(out, size, "kernel '%s', block (%u,%u,%u), thread (%u,%u,%u)", t->block->launch()->name, t->block_idx.x,
                t->block_idx.y, t->block_idx.z, t->thread_idx.x, t->thread_idx.y, t->thread_idx.z);
}

// ---- What kernels call ----------------------------------------------------------------------

// Barriers are told apart by kind, not by call site: as on the hardware (bar.sync), a barrier
// completes when every thread has arrived at one, and a compiler may duplicate one call into
// several code paths (GCC does, unswitching the reduction loops).
void syncthreads() { current_thread->block->wait(State::kAtBarrier); }
void warp_barrier() { current_thread->block->wait(State::kAtWarpBarrier); }
void* dynamic_shared() { return current_thread->block->dynamic_shared(); }
void* warp_scratch() { return current_thread->block->warp_scratch(); }
void kernel_fault(const char* what) { current_thread->block->fault(what); }

const char* kernel_name_from_signature(const char* pretty) {
  std::string s = pretty;
  const std::string key = "Kernel = ";
  const size_t at = s.find(key);
  if (at == std::string::npos) return strdup(pretty);
  std::string name = s.substr(at + key.size());
  const size_t end = name.find_first_of(";]");
  name = name.substr(0, end);
  if (!name.empty() && name[0] == '&') name.erase(0, 1);
  for (const std::string noise : {"hi::gpu::emu_backend::", "{anonymous}::"})
    for (size_t p; (p = name.find(noise)) != std::string::npos;) name.erase(p, noise.size());
  return strdup(name.c_str());
}

}  // namespace hi::gpu::emu
