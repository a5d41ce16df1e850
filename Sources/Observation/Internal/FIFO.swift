/// A first-in, first-out queue that keeps its storage, so a queue that fills and drains over and
/// over stops allocating once it has grown to its largest size. A removed element is released at
/// once.
@usableFromInline struct FIFO<Element> {
  @usableFromInline var storage: [Element?] = []
  @usableFromInline var head = 0

  @inlinable init() {}

  /// Whether the queue holds no element.
  @inlinable var isEmpty: Bool { head == storage.count }

  /// The number of elements in the queue.
  @inlinable var count: Int { storage.count - head }

  /// Adds `element` at the back.
  @inlinable mutating func append(_ element: Element) {
    storage.append(element)
  }

  /// Removes and returns the front element, or returns `nil` when the queue is empty.
  @inlinable mutating func popFirst() -> Element? {
    guard head < storage.count else { return nil }
    let element = storage[head]
    storage[head] = nil
    head += 1
    if head == storage.count {
      storage.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 32, head * 2 >= storage.count {
      storage.removeFirst(head)
      head = 0
    }
    return element
  }
}

extension FIFO: Sendable where Element: Sendable {}
