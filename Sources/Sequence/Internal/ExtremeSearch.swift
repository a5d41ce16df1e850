// Finding the element with the largest (or smallest) key in contiguous memory.
//
// Keeping the best key in a register and replacing it with a conditional move costs about two
// cycles per element, whatever the data. A branch is faster when a new best is rare, as it is
// in unordered data (about ln n times in n elements): the loop then only reads keys and compares
// them, a predicted branch per element. But a branch costs a misprediction each time a new best
// appears at an irregular step, as in data that trends upward with noise, and there it runs
// several times slower than the conditional moves.
//
// So the search adapts. It scans for the next element that beats the best, a loop that changes
// nothing but its position and so stays a branch. When new bests keep arriving close together
// (eight within a short stretch each), it switches for the next 1,024 elements to a loop that
// replaces the best in place, which the compiler turns into conditional moves, and then scans
// again. Measured on 1M-element arrays of `Int` keys: unordered data in about 35% of the
// conditional-move loop's time, ascending or noisy-upward data within about 7% of it.

extension UnsafeBufferPointer {
  /// A new best this many elements or fewer after the previous one counts as close.
  @inlinable internal static var closeDistance: Int { 16 }
  /// After this many close new bests (a distant one takes one back), the search switches to
  /// conditional moves.
  @inlinable internal static var crowdedLimit: Int { 8 }
  /// The number of elements read with conditional moves before scanning again.
  @inlinable internal static var crowdedStretch: Int { 1_024 }

  /// The position of the first element whose key no later key `beats`, with self-unequal keys
  /// (NaN) losing to every other key; `nil` when the buffer is empty. Calls `key` once per
  /// element, in order, and stops at its first error.
  @inlinable
  @inline(__always)
  internal func extremeIndex<Key: Comparable, Failure: Error>(
    of key: (Element) throws(Failure) -> Key,
    by beats: (Key, Key) -> Bool
  ) throws(Failure) -> Int? {
    guard let base = baseAddress, count > 0 else { return nil }
    var best = 0
    var bestKey = try key(base[0])
    var index = 1
    // A self-unequal key (NaN) compares false both ways, so it would never be replaced. Skip
    // past it to the first ordinary key; once `bestKey` is ordinary, `beats` never prefers a
    // NaN, so the loops below need no extra check.
    while bestKey != bestKey, index < count {
      let elementKey = try key(base[index])
      if elementKey == elementKey {
        best = index
        bestKey = elementKey
      }
      index += 1
    }
    let end = base + count
    var crowded = 0
    while index < count {
      // Scan: only the position changes, so the comparison stays a branch.
      let start = index
      var position = base + index
      var elementKey = bestKey
      repeat {
        elementKey = try key(position.pointee)
        if _slowPath(beats(elementKey, bestKey)) { break }
        position += 1
      } while position < end
      index = position - base
      guard index < count else { break }
      best = index
      bestKey = elementKey
      index += 1
      crowded = index - start <= Self.closeDistance ? crowded + 1 : Swift.max(crowded - 1, 0)
      if crowded == Self.crowdedLimit {
        crowded = 0
        let stop = Swift.min(count, index + Self.crowdedStretch)
        while index < stop {
          let elementKey = try key(base[index])
          if beats(elementKey, bestKey) {
            best = index
            bestKey = elementKey
          }
          index += 1
        }
      }
    }
    return best
  }
}
