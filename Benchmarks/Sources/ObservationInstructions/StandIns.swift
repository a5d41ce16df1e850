// Stand-ins for Docs/Performance.md: the least TinyObservation's update and set must do, written
// by hand with the same guarantees (a lock taken again by its holder stops the program, values
// are released after unlocking, deliveries are serial and never nest on one thread, a stopped
// watcher receives nothing more), and nothing else.

import Glibc
import Synchronization

/// The calling thread's number, as the stand-ins' times in Docs/Performance.md read it: its
/// `pthread_t`, through a call the caller cannot see into. (TinyBlocks' lock now reads a
/// per-thread key instead, which an optimized build reads again after an `await`; the
/// stand-ins never await.)
@inline(never) func threadNumber() -> UInt { UInt(pthread_self()) }

/// A `Mutex` with the holder's thread beside it, as TinyBlocks' lock keeps it.
final class HolderLock: Sendable {
  let mutex = Mutex(0)
  let holder = Atomic<UInt>(0)

  func increment() -> Int {
    let thread = threadNumber()
    if holder.load(ordering: .relaxed) == thread { fatalError("taken again") }
    return mutex.withLock { value in
      holder.store(thread, ordering: .relaxed)
      defer { holder.store(0, ordering: .relaxed) }
      value += 1
      return value
    }
  }
}

/// The least an atom's update must do: that lock, a check for optimistic layers, the version,
/// the check for watchers and tracking, and the replaced value handed out of the lock.
final class MinimalAtom: Sendable {
  struct State {
    var value: Int? = 0
    var version: UInt64 = 0
    var watchers: [Total] = []
    var tracking: Total?
    var layers: [Int]?
  }
  let mutex = Mutex(State())
  let holder = Atomic<UInt>(0)

  @inline(never) func deliver() { print("no watcher here") }

  func update(_ body: (inout Int) -> Void) -> Int {
    let thread = threadNumber()
    if holder.load(ordering: .relaxed) == thread { fatalError("taken again") }
    var replaced: Int?
    let (new, isWatched) = mutex.withLock { state in
      holder.store(thread, ordering: .relaxed)
      defer { holder.store(0, ordering: .relaxed) }
      guard state.layers == nil, var new = state.value else { fatalError("no layers here") }
      body(&new)
      replaced = state.value.take()
      state.value = new
      state.version &+= 1
      return (new, !state.watchers.isEmpty || state.tracking != nil)
    }
    if isWatched { deliver() }
    use(replaced ?? 0)  // released here, after unlocking
    return new
  }
}

/// The least a set to watchers must do, written here: the update above, plus the change
/// (old, new, no error) and a snapshot of the watchers handed out of the lock, the turn that
/// keeps deliveries serial (taken under the lock, ended after), the per-thread flag that keeps
/// deliveries on one thread from nesting, and each watcher's stop flag.
final class MinimalWatchedAtom: Sendable {
  final class Watcher: Sendable {
    let stopped = Atomic<UInt8>(0)
    let receive: @Sendable (MinimalChange) -> Void
    init(_ receive: @escaping @Sendable (MinimalChange) -> Void) { self.receive = receive }
  }
  struct MinimalChange {
    let old: Int
    let new: Int
    let error: (any Error)?
  }
  struct State {
    var value: Int? = 0
    var version: UInt64 = 0
    var watchers: [Watcher] = []
    var layers: [Int]?
  }
  let mutex = Mutex(State())
  let holder = Atomic<UInt>(0)
  let turn = Atomic<UInt8>(0)

  func watch(_ receive: @escaping @Sendable (MinimalChange) -> Void) {
    mutex.withLock { $0.watchers.append(Watcher(receive)) }
  }

  @inline(never) func queueForDeliverer() { fatalError("one thread here") }

  func set(_ newValue: Int) {
    let thread = threadNumber()
    if holder.load(ordering: .relaxed) == thread { fatalError("taken again") }
    let batch = mutex.withLock { state -> (MinimalChange, [Watcher])? in
      holder.store(thread, ordering: .relaxed)
      defer { holder.store(0, ordering: .relaxed) }
      guard state.layers == nil, let old = state.value else { fatalError("no layers here") }
      state.value = newValue
      state.version &+= 1
      if state.watchers.isEmpty { return nil }
      guard turn.load(ordering: .acquiring) == 0 else { queueForDeliverer(); return nil }
      turn.store(1, ordering: .releasing)
      return (MinimalChange(old: old, new: newValue, error: nil), state.watchers)
    }
    guard let (change, watchers) = batch else { return }
    let entered = enterDelivery()
    watchers.withUnsafeBufferPointer { watchers in
      for index in watchers.indices where watchers[index].stopped.load(ordering: .acquiring) == 0 {
        watchers[index].receive(change)
      }
    }
    if entered { leaveDelivery() }
    guard turn.compareExchange(expected: 1, desired: 0, ordering: .acquiringAndReleasing).exchanged
    else { queueForDeliverer(); return }
  }
}

/// The per-thread "delivering" flag of `MinimalWatchedAtom`.
let deliveringKey: pthread_key_t = {
  var key = pthread_key_t()
  precondition(pthread_key_create(&key, nil) == 0)
  return key
}()
/// Raises this thread's flag; returns whether it was down.
@inline(never) func enterDelivery() -> Bool {
  if pthread_getspecific(deliveringKey) != nil { return false }
  pthread_setspecific(deliveringKey, UnsafeRawPointer(bitPattern: 1))
  return true
}
/// Lowers this thread's flag.
@inline(never) func leaveDelivery() {
  pthread_setspecific(deliveringKey, nil)
}
