import Testing
import TinyTestSupport
@testable import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit)) struct PromiseStorageTests {
  /// A value whose release can be observed.
  private final class Box: Sendable {}

  @Test func aFulfilledValueIsReleasedWhenTheStorageIsFreed() {
    weak var released: Box?
    do {
      let box = Box()
      released = box
      let storage = PromiseStorage(fulfilledWith: box)
      storage.withLock { _ in #expect(storage.slot(of: Box.self).pointee === box) }
      storage.free(of: Box.self)
    }
    #expect(released == nil)
  }

  @Test func aValueStoredOnResolutionIsReleasedWhenTheStorageIsFreed() {
    weak var released: Box?
    do {
      let box = Box()
      released = box
      let storage = PromiseStorage(of: Box.self)
      storage.withLock { state in
        storage.slot(of: Box.self).initialize(to: box)
        _ = state.resolve(.fulfilled) { 1 }
      }
      storage.free(of: Box.self)
    }
    #expect(released == nil)
  }

  @Test func aPromiseReleasesItsValueWhenItGoesAway() throws {
    weak var released: Box?
    do {
      let box = Box()
      released = box
      let fulfilled = Promise(value: box)
      let resolvedLater = Promise<Box>()
      resolvedLater.fulfill(box)
      #expect(try fulfilled.result?.get() === box)
      #expect(try resolvedLater.result?.get() === box)
    }
    #expect(released == nil)
  }

  @Test func pendingAndRejectedStorageNeverTouchesTheEmptySlot() {
    // Deinitializing an empty slot of a class type would release garbage and crash here.
    PromiseStorage(of: Box.self).free(of: Box.self)
    PromiseStorage(of: Box.self, rejectedWith: TestError()).free(of: Box.self)
    _ = Promise<Box>()
    _ = Promise<Box>(error: TestError())
  }

  @Test func theStateAndTheValueKeepTheirPlacesForAnyAlignment() {
    let bytes = PromiseStorage(fulfilledWith: UInt8(7))
    let wide = PromiseStorage(fulfilledWith: SIMD4<Double>(1, 2, 3, 4))
    let text = PromiseStorage(fulfilledWith: "a string")
    #expect(bytes.withLock { _ in bytes.slot(of: UInt8.self).pointee } == 7)
    #expect(wide.withLock { _ in wide.slot(of: SIMD4<Double>.self).pointee } == SIMD4(1, 2, 3, 4))
    #expect(text.withLock { _ in text.slot(of: String.self).pointee } == "a string")
    #expect(Int(bitPattern: wide.slot) % MemoryLayout<SIMD4<Double>>.alignment == 0)
    #expect(text.withLock { $0.isResolved })
    bytes.free(of: UInt8.self)
    wide.free(of: SIMD4<Double>.self)
    text.free(of: String.self)
  }

  @Test func storageMadeResolvedTakesAStampAndPendingStorageNone() {
    let first = PromiseStorage(fulfilledWith: 1)
    let second = PromiseStorage(of: Int.self, rejectedWith: TestError())
    let pending = PromiseStorage(of: Int.self)
    let firstStamp = first.withLock { $0.stamp }
    let secondStamp = second.withLock { $0.stamp }
    #expect(firstStamp > 0)
    #expect(secondStamp > firstStamp)
    #expect(pending.withLock { $0.stamp } == 0)
    first.free(of: Int.self)
    second.free(of: Int.self)
    pending.free(of: Int.self)
  }

  @Test func aPendingStorageReleasesItsCallbacksWhenFreed() {
    weak var released: Box?
    do {
      let box = Box()
      released = box
      let storage = PromiseStorage(of: Int.self)
      _ = storage.withLock { $0.register(.function { _ in _ = box }) }
      storage.free(of: Int.self)
    }
    #expect(released == nil)
  }
}
