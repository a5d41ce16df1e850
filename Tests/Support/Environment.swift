import Foundation
import Testing

/// Whether this process runs under the thread sanitizer (`swift test --sanitize=thread`), which
/// makes every memory access, allocation and lock several times slower.
public let isThreadSanitized: Bool = {
  #if canImport(Darwin)
    let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
  #else
    let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
  #endif
  return dlsym(everywhere, "__tsan_init") != nil
}()

/// Whether the full-volume stress tests run: set `TINYBLOCKS_FULL_STRESS=1` (CI does).
/// Without it, each stress test runs a volume that keeps `swift test` fast; the forced
/// interleavings, not the volume, are what find races.
public let runsFullStress: Bool =
  ProcessInfo.processInfo.environment["TINYBLOCKS_FULL_STRESS"]
  == "1"

/// `full` when the full-volume stress runs, else `quick`; a tenth of either under the thread
/// sanitizer (at least 1).
public func stressVolume(full: Int, quick: Int) -> Int {
  let volume = runsFullStress ? full : quick
  return isThreadSanitized ? Swift.max(1, volume / 10) : volume
}

/// Whether this run is several times slower than a plain `swift test`: under the thread
/// sanitizer, which slows every memory access, allocation and lock, or at full stress volume,
/// where long synchronous stress tests hold the few cooperative threads that other tests'
/// awaits resume on.
public let runsSlowly = isThreadSanitized || runsFullStress

/// The time limit of every test suite: a minute, or five when the run is slow (``runsSlowly``;
/// a test that waits its turn for the two cores can pass a minute there without hanging). A
/// test that hangs fails with its name either way.
public let suiteTimeLimit = TimeLimitTrait.Duration.minutes(runsSlowly ? 5 : 1)
