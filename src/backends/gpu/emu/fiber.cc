#include "backends/gpu/emu/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

#if !defined(__x86_64__)
#error "the emulated GPU's fibers switch with x86-64 code of their own; port hi_emu_switch first"
#endif

namespace hi::gpu::emu {
namespace {

void* map_stack(size_t bytes, size_t* mapped) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  *mapped = (bytes + page - 1) / page * page + page;
  void* p = mmap(nullptr, *mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // The lowest page stays unmapped for access: a kernel that overflows its stack faults there
  // instead of writing into the next thread's stack.
  mprotect(p, page, PROT_NONE);
  return p;
}

}  // namespace
}  // namespace hi::gpu::emu

// hi_emu_switch(save, load): pushes the callee-saved registers on the current stack, stores the
// stack pointer in *save, loads `load` as the stack pointer and pops the registers saved there.
// hi_emu_fiber_start: where a fresh fiber's first switch "returns" to; r12 holds the entry and
// r13 its argument (placed in the initial frame by reset()).
asm(R"(
  .text
  .globl hi_emu_switch
  .type hi_emu_switch,@function
hi_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size hi_emu_switch, .-hi_emu_switch

  .globl hi_emu_fiber_start
  .type hi_emu_fiber_start,@function
hi_emu_fiber_start:
  subq $8, %rsp
  movq %r13, %rdi
  call *%r12
  ud2
  .size hi_emu_fiber_start, .-hi_emu_fiber_start
)");

extern "C" void hi_emu_switch(void** save, void* load);
extern "C" void hi_emu_fiber_start();

namespace hi::gpu::emu {

void Fiber::reset(size_t stack_bytes, Entry entry, void* arg) {
  if (!stack_) stack_ = map_stack(stack_bytes, &mapped_);
  auto top = (reinterpret_cast<uintptr_t>(stack_) + mapped_) & ~uintptr_t{15};
  auto* frame = reinterpret_cast<void**>(top - 16);  // 16-byte aligned: the "return address"
  frame[0] = reinterpret_cast<void*>(&hi_emu_fiber_start);
  // Below it, the six registers hi_emu_switch pops: r15, r14, r13, r12, rbx, rbp.
  void** regs = frame - 6;
  regs[0] = nullptr;
  regs[1] = nullptr;
  regs[2] = arg;                             // r13
  regs[3] = reinterpret_cast<void*>(entry);  // r12
  regs[4] = nullptr;
  regs[5] = nullptr;
  fiber_sp_ = regs;
}

void Fiber::resume() { hi_emu_switch(&host_sp_, fiber_sp_); }

HI_EMU_NO_TSAN void Fiber::suspend() { hi_emu_switch(&fiber_sp_, host_sp_); }

Fiber::~Fiber() {
  if (stack_) munmap(stack_, mapped_);
}

}  // namespace hi::gpu::emu
