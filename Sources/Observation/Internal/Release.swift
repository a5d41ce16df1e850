/// Releases `value` without nesting: when this thread is already running trampolined work, the
/// value waits in a box queued on the ``Trampoline`` and is released when its turn comes, so the
/// `deinit`s it sets off (which may release the next link of a chain, and so on) run one after
/// another, not inside each other.
///
/// This is what `Trampoline.release(_:)` means to do, written so that optimized builds keep it:
/// with Swift 6.3.1 `-O`, the disassembly of that form shows the value released *before* the
/// inlined ``Trampoline/enter()`` stores that the thread is running trampolined work, so every
/// nested release runs inline and a long chain overflows the stack. Here the thread is entered
/// through a call that is not inlined; the box reads its value when it lets it go, so no build
/// can release it earlier.
func releaseWithoutNesting<Value>(_ value: consuming Value) {
  if enterTrampoline() {
    _ = consume value
    Trampoline.leave()
  } else {
    let box = ReleaseBox(consume value)
    Trampoline.enqueue { box.release() }
  }
}

/// ``Trampoline/enter()`` behind a call the optimizer cannot see through: the store it makes is
/// done before the caller releases anything.
@inline(never)
private func enterTrampoline() -> Bool {
  Trampoline.enter()
}

/// Holds a value until ``release()``, which reads it, so it cannot be released earlier.
private final class ReleaseBox<Value> {
  private var value: Value?

  init(_ value: consuming Value) {
    self.value = consume value
  }

  func release() {
    let value = self.value
    self.value = nil
    withExtendedLifetime(value) {}
  }
}
