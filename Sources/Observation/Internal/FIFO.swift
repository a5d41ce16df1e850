/// A first-in, first-out queue made of two stacks: elements go onto `back`; when `front` runs
/// dry, it takes all of `back` at once, reversed, so each element moves once. Both keep their
/// storage, so a queue that fills and drains over and over stops allocating once it has grown to
/// its largest size. A removed element is released at once.
struct FIFO<Element> {
  /// The elements appended since `front` last took them, the newest at the end.
  private(set) var back: [Element] = []
  /// The elements to remove next, the first at the end.
  private(set) var front: [Element] = []

  /// Whether the queue holds no element.
  var isEmpty: Bool { front.isEmpty && back.isEmpty }

  /// Adds `element` at the back.
  mutating func append(_ element: Element) {
    back.append(element)
  }

  /// Removes and returns the front element, or returns `nil` when the queue is empty.
  mutating func popFirst() -> Element? {
    if front.isEmpty {
      front.append(contentsOf: back.reversed())
      back.removeAll(keepingCapacity: true)
    }
    return front.popLast()
  }
}

extension FIFO: Sendable where Element: Sendable {}
