import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct FIFOTests {
  @Test func firstInFirstOut() {
    var fifo = FIFO<Int>()
    #expect(fifo.isEmpty)
    #expect(fifo.popFirst() == nil)
    for value in 1...3 { fifo.append(value) }
    #expect(!fifo.isEmpty)
    #expect(fifo.popFirst() == 1)
    fifo.append(4)
    #expect(
      [fifo.popFirst(), fifo.popFirst(), fifo.popFirst(), fifo.popFirst()] == [2, 3, 4, nil])
    #expect(fifo.isEmpty)
  }

  @Test func staysInOrderAcrossRefillsWhileNeverEmpty() {
    var fifo = FIFO<Int>()
    var next = 0
    var expected = 0
    for round in 0..<1_000 {
      for _ in 0..<(round % 7 + 1) {
        fifo.append(next)
        next += 1
      }
      for _ in 0..<(round % 5 + 1) {
        guard let value = fifo.popFirst() else { break }
        #expect(value == expected)
        expected += 1
      }
    }
    while let value = fifo.popFirst() {
      #expect(value == expected)
      expected += 1
    }
    #expect(expected == next)
  }

  @Test func keepsItsStorageWhenItDrains() {
    // A queue that fills and drains over and over stops allocating: draining keeps the room.
    var fifo = FIFO<Int>()
    for value in 0..<100 { fifo.append(value) }
    while fifo.popFirst() != nil {}
    #expect(fifo.isEmpty)
    let room = (fifo.back.capacity, fifo.front.capacity)
    #expect(room.0 >= 100 && room.1 >= 100)
    for value in 0..<100 { fifo.append(value) }
    while fifo.popFirst() != nil {}
    #expect(fifo.back.capacity == room.0)
    #expect(fifo.front.capacity == room.1)
  }

  @Test func releasesAnElementWhenItIsRemoved() {
    weak var weakOwner: Owner?
    var fifo = FIFO<Owner>()
    do {
      let owner = Owner()
      weakOwner = owner
      fifo.append(owner)
      fifo.append(Owner("second"))
    }
    _ = fifo.popFirst()
    #expect(weakOwner == nil)
    _ = fifo.popFirst()
    #expect(fifo.isEmpty)
  }
}
