extension Sequence {
  /// Returns the element with the largest key, or `nil` when the sequence is empty.
  ///
  /// This is "argmax": it compares keys but returns the element. `key` is called exactly once
  /// per element, so an expensive key costs half of what `max(by: { key($0) < key($1) })`
  /// pays. Ties keep the first of the largest elements, as `max(by:)` does.
  ///
  /// Keys that are not equal to themselves, such as a floating-point NaN, never beat a key
  /// that is: such an element is the result only when every key is like it, and then the
  /// first element is returned. (The standard library's `max(by:)` returns a leading NaN.)
  ///
  /// ```swift
  /// ["kiwi", "banana", "fig"].max(of: \.count)        // → Optional("banana")
  /// ["ab", "cd"].max(of: \.count)                     // → Optional("ab"): the first of a tie
  /// [Double.nan, 2, 1].max(of: { $0 })                // → Optional(2.0)
  /// [String]().max(of: \.count)                       // → nil
  /// ```
  ///
  /// - Parameter key: Returns the value to compare an element by.
  /// - Returns: The first element whose key is the largest; `nil` for an empty sequence.
  /// - Throws: The first error `key` throws; the remaining elements are not read.
  /// - Complexity: O(*n*), where *n* is the length of the sequence; *n* calls to `key`.
  @inlinable
  public func max<Key: Comparable, Failure: Error>(
    of key: (Element) throws(Failure) -> Key
  ) throws(Failure) -> Element? {
    try extreme(of: key, by: >)
  }

  /// Returns the element with the smallest key, or `nil` when the sequence is empty.
  ///
  /// This is "argmin": it compares keys but returns the element. `key` is called exactly once
  /// per element. Ties keep the first of the smallest elements, as `min(by:)` does.
  ///
  /// Keys that are not equal to themselves, such as a floating-point NaN, never beat a key
  /// that is: such an element is the result only when every key is like it, and then the
  /// first element is returned.
  ///
  /// ```swift
  /// let stops = [12.5, 3.0, 7.25]
  /// stops.min(of: { abs($0 - 8) })                    // → Optional(7.25): the stop nearest to 8
  /// ["ab", "c", "d"].min(of: \.count)                 // → Optional("c"): the first of a tie
  /// [Double]().min(of: { $0 })                        // → nil
  /// ```
  ///
  /// - Parameter key: Returns the value to compare an element by.
  /// - Returns: The first element whose key is the smallest; `nil` for an empty sequence.
  /// - Throws: The first error `key` throws; the remaining elements are not read.
  /// - Complexity: O(*n*), where *n* is the length of the sequence; *n* calls to `key`.
  @inlinable
  public func min<Key: Comparable, Failure: Error>(
    of key: (Element) throws(Failure) -> Key
  ) throws(Failure) -> Element? {
    try extreme(of: key, by: <)
  }

  /// The first element whose key no later key `beats`, with self-unequal keys (NaN) losing to
  /// every other key. Shared by ``max(of:)`` (`beats` is `>`) and ``min(of:)`` (`<`).
  @inlinable
  internal func extreme<Key: Comparable, Failure: Error>(
    of key: (Element) throws(Failure) -> Key,
    by beats: (Key, Key) -> Bool
  ) throws(Failure) -> Element? {
    var iterator = makeIterator()
    guard var best = iterator.next() else { return nil }
    var bestKey = try key(best)
    // A self-unequal key compares false both ways, so it would never be replaced: skip to the
    // first ordinary key. From then on `beats` never prefers a NaN.
    while bestKey != bestKey, let element = iterator.next() {
      let elementKey = try key(element)
      if elementKey == elementKey {
        best = element
        bestKey = elementKey
      }
    }
    while let element = iterator.next() {
      let elementKey = try key(element)
      if beats(elementKey, bestKey) {
        best = element
        bestKey = elementKey
      }
    }
    return best
  }
}
