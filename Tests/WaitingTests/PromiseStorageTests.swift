import Testing
import TinyTestSupport
@testable import TinyWaiting

@Suite struct PromiseStorageTests {
  /// A value whose release can be observed.
  private final class Box {}

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
      let storage = PromiseStorage<Box>(.pending)
      storage.withLock { state in
        _ = state.resolve(.fulfilled)
        storage.slot.initialize(to: box)
      }
    }
    #expect(released == nil)
  }

  @Test func pendingAndRejectedStorageNeverTouchesTheEmptySlot() {
    // Deinitializing an empty slot of a class type would release garbage and crash here.
    _ = PromiseStorage<Box>(.pending)
    _ = PromiseStorage<Box>(.rejected(TestError()))
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
}
