extension Sequence {
  /// Combines the elements from left to right, starting from the first element instead of a seed.
  ///
  /// Use it for operations without a natural starting value (the maximum of strings, the
  /// union of sets, the concatenation of non-empty paths). An empty sequence gives `nil`; a
  /// one-element sequence gives that element without calling `nextPartialResult`.
  ///
  /// ```swift
  /// [3, 1, 2].reduce(+)                       // → Optional(6)
  /// ["a", "b", "c"].reduce { "\($0)/\($1)" }  // → Optional("a/b/c")
  /// [Int]().reduce(+)                         // → nil
  /// ```
  ///
  /// When the operation has an identity, the seeded `reduce(_:_:)` of the standard library is
  /// the better fit: `[Int]().reduce(0, +)` is `0`, not `nil`.
  ///
  /// - Parameter nextPartialResult: Called with the result so far and the next element; its
  ///   return value becomes the new result.
  /// - Returns: The combined value, or `nil` when the sequence is empty.
  /// - Throws: The first error `nextPartialResult` throws; the remaining elements are not read.
  /// - Complexity: O(*n*), where *n* is the length of the sequence; one pass.
  @inlinable
  public func reduce<Failure: Error>(
    _ nextPartialResult: (Element, Element) throws(Failure) -> Element
  ) throws(Failure) -> Element? {
    var iterator = makeIterator()
    guard var result = iterator.next() else { return nil }
    while let element = iterator.next() {
      result = try nextPartialResult(result, element)
    }
    return result
  }
}
