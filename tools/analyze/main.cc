// analyze: layer-level roofline analysis of an ONNX model on a device.
// Everything but argv handling lives in run.cc (testable in-process).
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tools/analyze/run.h"

namespace {

// One run allocates tens to hundreds of MB in small pieces and frees them at
// exit; most of its time went to first-touch page faults (one per 4 KiB
// page, each a trip through the kernel, on a VM a costly one; bench/README,
// issue 16). So the heap keeps what is freed (the protobuf parse's memory is
// reused by the analysis instead of being unmapped and faulted in anew), and
// its first GiB is reserved up front on transparent huge pages: a fault maps
// 2 MiB. Only address space is reserved; resident memory grows with what is
// touched, in 2 MiB steps. What glibc.malloc.hugetlb=1 does, for this
// program alone.
//
// A huge page fills a whole aligned 2 MiB of the heap only if nothing in it
// was touched before the madvise, and the run's allocations must start
// there: below it they fault in 4 KiB at a time (before this, the first
// 2 MiB of every run did: about 500 faults of a ViT-B/16 run). So the
// request that grows the heap is a block, never touched or freed, that
// ends just below the first huge page: malloc writes only its header and
// the new top's, both below that page, and serves everything after it from
// the huge pages.
void* volatile heap_gap = nullptr;  // reachable: not a leak to LeakSanitizer

void TuneHeapForOneRun() {
  constexpr size_t kReserve = size_t{1} << 30;
  constexpr size_t kStep = size_t{64} << 20;
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  constexpr uintptr_t kMargin = 4096;  // the two chunk headers, rounded up
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kStep));
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // never: the run ends soon
  mallopt(M_TOP_PAD, static_cast<int>(kReserve));
  const auto begin = reinterpret_cast<uintptr_t>(sbrk(0));
  if (begin == static_cast<uintptr_t>(-1)) return;
  // At least 2 MiB past the heap's end: more than what is left of its top
  // chunk, so the request grows the heap by M_TOP_PAD and comes from the
  // top, which starts at or below `begin`.
  const uintptr_t first =
      ((begin + kHugePage - 1) & ~(kHugePage - 1)) + kHugePage;
  heap_gap = std::malloc(first - begin - kMargin);
  mallopt(M_TOP_PAD, static_cast<int>(kStep));  // later growth
  const auto end = reinterpret_cast<uintptr_t>(sbrk(0));
  if (end <= first) return;
  madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

// Ends the process once the output is flushed, without the exit handlers
// and static destructors of the program and its libraries: the kernel takes
// the memory back at once. Sanitizer builds exit normally, so that
// LeakSanitizer still checks at exit.
[[noreturn]] void ExitWithoutTeardown(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(status);
}

bool SanitizerBuild() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  TuneHeapForOneRun();
  std::vector<std::string> args(argv + 1, argv + argc);
  // A successful run ends inside AnalyzeMain, before its state is freed.
  const bool teardown = SanitizerBuild();
  const int status = ridgeline::tools::analyze::AnalyzeMain(
      args, std::cout, std::cerr,
      teardown ? ridgeline::tools::analyze::AtFinish()
               : [](int status) { ExitWithoutTeardown(status); });
  if (!teardown) ExitWithoutTeardown(status);
  return status;
}
