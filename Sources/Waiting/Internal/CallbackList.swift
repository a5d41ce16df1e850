/// Callbacks in registration order, each with its identifier, keeping the first one inline: a
/// promise usually has one callback (the next step of a chain, or one awaiting task), and then
/// it needs no array, so registering it allocates nothing.
struct CallbackList<Callback>: Sequence {
  /// A callback and the identifier it was registered under.
  typealias Entry = (id: UInt64, callback: Callback)

  /// The oldest entry; `nil` only when the list is empty.
  var first: Entry?
  /// The entries after the first, oldest first.
  var rest: [Entry] = []

  /// An empty list.
  init() {}

  /// Whether the list holds no callback.
  var isEmpty: Bool { first == nil }

  /// The number of callbacks.
  var count: Int { first == nil ? 0 : 1 + rest.count }

  /// Adds `entry` after every entry already in the list.
  mutating func append(_ entry: Entry) {
    if first == nil { first = entry } else { rest.append(entry) }
  }

  /// Removes the entry registered under `id`, keeping the others in order.
  ///
  /// - Returns: The entry's position (0 for the oldest) and its callback, or `nil` when no
  ///   entry has that identifier.
  mutating func remove(id: UInt64) -> (position: Int, callback: Callback)? {
    guard let head = first else { return nil }
    if head.id == id {
      first = rest.isEmpty ? nil : rest.removeFirst()
      return (0, head.callback)
    }
    guard let index = rest.firstIndex(where: { $0.id == id }) else { return nil }
    return (index + 1, rest.remove(at: index).callback)
  }

  /// The entries, oldest first.
  func makeIterator() -> Iterator {
    Iterator(first: first, rest: rest.makeIterator())
  }

  /// Iterates over the entries, oldest first.
  struct Iterator: IteratorProtocol {
    var first: Entry?
    var rest: IndexingIterator<[Entry]>

    init(first: Entry?, rest: IndexingIterator<[Entry]>) {
      self.first = first
      self.rest = rest
    }

    mutating func next() -> Entry? {
      if let entry = first {
        first = nil
        return entry
      }
      return rest.next()
    }
  }
}

extension CallbackList: Sendable where Callback: Sendable {}
extension CallbackList.Iterator: Sendable where Callback: Sendable {}
