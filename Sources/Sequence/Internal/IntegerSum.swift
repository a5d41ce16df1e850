// The exact sum of fixed-width integers: it traps only when the true total does not fit in the
// type, never because a partial sum left the type's range on the way. Two ways to get there
// without checking every partial sum:
//
// - `IntegerSum`: any width, any sequence. A wrapping sum plus the net number of times it
//   wrapped (+1 past `max`, -1 past `min`). The true total is `wrapped + carries × 2^bitWidth`,
//   so it fits exactly when `carries` is 0.
// - `WideSum`: elements of at most 64 bits in contiguous memory. Each element, as 64 bits, is
//   `high × 2^32 + low`; the loop adds the elements with wrapping adds and, apart, their high
//   halves, neither of which can wrap within a chunk. Together they give the chunk's exact sum,
//   added into a 128-bit total. The loop has no branch, so the compiler vectorizes it as it
//   does a wrapping `&+` loop.

/// A running exact sum of `Value`s: a wrapping sum and the net count of its wraps.
@usableFromInline
internal struct IntegerSum<Value: FixedWidthInteger> {
  /// The sum, wrapped around to `Value`'s width.
  @usableFromInline internal var wrapped: Value = .zero
  /// The number of times `wrapped` went past `Value.max`, minus the times it went past
  /// `Value.min`. (An `Int` cannot overflow: each wrap needs an element.)
  @usableFromInline internal var carries = 0

  @inlinable
  internal init() {}

  /// Adds `value`.
  @inlinable
  internal mutating func add(_ value: Value) {
    let (partial, overflow) = wrapped.addingReportingOverflow(value)
    wrapped = partial
    // Past `max` a signed sum wraps to a negative value, past `min` to a non-negative one
    // (an unsigned sum wraps only past `max`).
    if overflow { carries += !Value.isSigned || partial < .zero ? 1 : -1 }
  }

  /// The total, or `nil` when it does not fit in `Value`; then `isAbove` tells whether it is
  /// above `Value.max` or below `Value.min` (`false` when it fits).
  @inlinable
  internal var exactTotal: (total: Value?, isAbove: Bool) {
    carries == 0 ? (wrapped, false) : (nil, carries > 0)
  }
}

/// A 128-bit two's-complement total, `high × 2^64 + low`, of elements of at most 64 bits.
@usableFromInline
internal struct WideSum {
  @usableFromInline internal var high: Int64 = 0
  @usableFromInline internal var low: UInt64 = 0

  @inlinable
  internal init() {}

  /// The exact sum of `elements`, whose type has at most 64 bits.
  @inlinable
  internal static func of<Value: FixedWidthInteger>(_ elements: UnsafeBufferPointer<Value>)
    -> WideSum
  {
    // Below 2^32 elements a chunk's sums of high and of low halves stay below 2^64.
    let chunkLength = Int(Int32.max)
    var total = WideSum()
    var start = elements.startIndex
    while start < elements.endIndex {
      let end = start + Swift.min(chunkLength, elements.endIndex - start)
      total.add(UnsafeBufferPointer(rebasing: elements[start..<end]))
      start = end
    }
    return total
  }

  /// Adds the sum of `chunk`, fewer than 2^32 elements of at most 64 bits.
  @inlinable
  internal mutating func add<Value: FixedWidthInteger>(_ chunk: UnsafeBufferPointer<Value>) {
    // As 64 bits (sign- or zero-extended), element = high × 2^32 + low, with low in 0 ..< 2^32
    // and high in -2^31 ..< 2^31 (signed) or 0 ..< 2^32. Biased by 2^31 when signed, the highs
    // are what a logical shift gives, so their sum needs no signed shift. The lows' sum, below
    // 2^64, is what the wrapping sum of the elements leaves once the highs are taken out.
    let bias: UInt64 = Value.isSigned ? 1 << 31 : 0
    var sum: UInt64 = 0
    var biasedHighs: UInt64 = 0
    for element in chunk {
      let bits = UInt64(truncatingIfNeeded: element)
      sum &+= bits
      biasedHighs &+= (bits >> 32) ^ bias
    }
    let highs = Int64(bitPattern: biasedHighs &- UInt64(chunk.count) &* bias)
    // Add highs × 2^32, then the lows.
    add(high: highs >> 32, low: UInt64(bitPattern: highs) << 32)
    add(high: 0, low: sum &- UInt64(bitPattern: highs) << 32)
  }

  /// Adds `high × 2^64 + low`.
  @inlinable
  internal mutating func add(high addedHigh: Int64, low addedLow: UInt64) {
    let (sum, carry) = low.addingReportingOverflow(addedLow)
    low = sum
    // Wrapping: the true total stays far inside 128 bits (it would take 2^63 elements).
    high = high &+ addedHigh &+ (carry ? 1 : 0)
  }

  /// The total as a `Value` of at most 64 bits, or `nil` when it does not fit; then `isAbove`
  /// tells whether it is above `Value.max` or below `Value.min` (`false` when it fits).
  @inlinable
  internal func exactTotal<Value: FixedWidthInteger>(as _: Value.Type)
    -> (total: Value?, isAbove: Bool)
  {
    let fits: Bool
    if Value.isSigned {
      let signed = Int64(bitPattern: low)
      fits = high == signed >> 63 && Value(exactly: signed) != nil
    } else {
      fits = high == 0 && Value(exactly: low) != nil
    }
    return fits ? (Value(truncatingIfNeeded: low), false) : (nil, high >= 0)
  }
}

/// Stops the program: the exact total of a sum does not fit in `Value`.
@usableFromInline
@inline(never)
internal func sumOutOfRange<Value: FixedWidthInteger>(
  _ method: StaticString, _: Value.Type, isAbove: Bool
) -> Never {
  let bound =
    isAbove
    ? "greater than \(Value.self).max (\(Value.max))" : "less than \(Value.self).min (\(Value.min))"
  fatalError(
    "Sequence.\(method): the total is \(bound), so it does not fit in \(Value.self)")
}
