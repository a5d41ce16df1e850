import Testing
import TinyTestSupport
@testable import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit)) struct PromiseStorageTests {
  /// A value whose release can be observed.
  private final class Box: Sendable {}

  @Test func aFulfilledValueIsReleasedWithTheStorage() {
    weak var released: Box?
    do {
      let box = Box()
      released = box
      let storage = PromiseStorage(fulfilledWith: box)
      storage.withLock { _ in #expect(storage.slot.pointee === box) }
    }
    #expect(released == nil)
  }

  @Test func aValueStoredOnResolutionIsReleasedWithTheStorage() {
    weak var released: Box?
    do {
      let box = Box()
      released = box
      let storage = PromiseStorage<Box>()
      storage.withLock { state in
        storage.slot.initialize(to: box)
        _ = state.resolve(.fulfilled) { 1 }
      }
    }
    #expect(released == nil)
  }

  @Test func pendingAndRejectedStorageNeverTouchesTheEmptySlot() {
    // Deinitializing an empty slot of a class type would release garbage and crash here.
    _ = PromiseStorage<Box>()
    _ = PromiseStorage<Box>(rejectedWith: TestError())
  }

  @Test func theStateAndTheValueKeepTheirPlacesForAnyAlignment() {
    let bytes = PromiseStorage(fulfilledWith: UInt8(7))
    let wide = PromiseStorage(fulfilledWith: SIMD4<Double>(1, 2, 3, 4))
    let text = PromiseStorage(fulfilledWith: "a string")
    #expect(bytes.withLock { _ in bytes.slot.pointee } == 7)
    #expect(wide.withLock { _ in wide.slot.pointee } == SIMD4(1, 2, 3, 4))
    #expect(text.withLock { _ in text.slot.pointee } == "a string")
    #expect(Int(bitPattern: wide.slot) % MemoryLayout<SIMD4<Double>>.alignment == 0)
    #expect(text.withLock { $0.isResolved })
  }

  @Test func storageMadeResolvedTakesAStampAndPendingStorageNone() {
    let first = PromiseStorage(fulfilledWith: 1)
    let second = PromiseStorage<Int>(rejectedWith: TestError())
    let pending = PromiseStorage<Int>()
    let firstStamp = first.withLock { $0.stamp }
    let secondStamp = second.withLock { $0.stamp }
    #expect(firstStamp > 0)
    #expect(secondStamp > firstStamp)
    #expect(pending.withLock { $0.stamp } == 0)
  }

  @Test func aPendingStorageReleasesItsCallbacksWhenItGoesAway() {
    weak var released: Box?
    do {
      let box = Box()
      released = box
      let storage = PromiseStorage<Int>()
      _ = storage.withLock { $0.register(.function { _ in _ = box }) }
    }
    #expect(released == nil)
  }
}
