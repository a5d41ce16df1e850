// The exact sum of fixed-width integers, without a check per addition.
//
// A sum of integers is exact when it traps only if the true total does not fit in the type. Two
// ways to get there without testing every partial sum:
//
// - `IntegerSum`: any width, any sequence. A wrapping sum plus the net number of times it
//   wrapped (+1 past `max`, -1 past `min`). The true total is `wrapped + carries × 2^bitWidth`,
//   so it fits exactly when `carries` is 0. One predictable, almost never taken branch per
//   element.
// - `WideSum`: elements of at most 64 bits in contiguous memory, summed in chunks with
//   wrapping adds that provably cannot wrap, each chunk's sum added into a 128-bit total.
//   Elements of up to 32 bits are widened to 64. Blocks of 64-bit elements that are all within
//   ±2^47 (nearly all data) are summed as they are, while an or of the elements checks that
//   bound; a block that fails the check, and every block after it, is summed as a wrapping sum
//   plus the exact sum of the elements' high halves. These loops have no branch and no
//   dependency between elements beyond the adds, so the compiler vectorizes them like a
//   wrapping `&+` loop.

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
  @inline(__always)
  internal mutating func add(_ value: Value) {
    let (partial, overflow) = wrapped.addingReportingOverflow(value)
    wrapped = partial
    // Past `max` a signed sum wraps to a negative value, past `min` to a non-negative one
    // (an unsigned sum wraps only past `max`). Reading `partial`, not `value`, lets the add
    // read its operand straight from memory.
    if _slowPath(overflow) { carries += !Value.isSigned || partial < .zero ? 1 : -1 }
  }

  /// The total, or `nil` when it does not fit in `Value`; then `isAbove` tells whether it is
  /// above `Value.max` or below `Value.min`.
  @inlinable
  internal var exactTotal: (total: Value?, isAbove: Bool) {
    carries == 0 ? (wrapped, false) : (nil, carries > 0)
  }
}

/// A 128-bit two's-complement total, `high × 2^64 + low`, for sums of elements of at most
/// 64 bits.
@usableFromInline
internal struct WideSum {
  /// The elements per chunk. In a chunk, a part of an element is at most 2^32 in magnitude, so
  /// the chunk's sums of parts stay below 2^62 in magnitude: no wrap.
  @inlinable internal static var chunkLength: Int { 1 << 30 }

  @usableFromInline internal var high: Int64 = 0
  @usableFromInline internal var low: UInt64 = 0

  @inlinable
  internal init() {}

  /// Adds `high × 2^64 + low`.
  @inlinable
  internal mutating func add(high addedHigh: Int64, low addedLow: UInt64) {
    let (sum, carry) = low.addingReportingOverflow(addedLow)
    low = sum
    // Wrapping: the true total stays far inside 128 bits (it would take 2^63 elements).
    high = high &+ addedHigh &+ (carry ? 1 : 0)
  }

  /// Adds a signed 64-bit value.
  @inlinable
  internal mutating func add(_ value: Int64) {
    add(high: value >> 63, low: UInt64(bitPattern: value))
  }

  /// Adds `value × 2^32`.
  @inlinable
  internal mutating func add(shiftedBy32 value: Int64) {
    add(high: value >> 32, low: UInt64(bitPattern: value) << 32)
  }

  /// The exact sum of `elements`, whose type has at most 64 bits.
  @inlinable
  internal static func of<Value: FixedWidthInteger>(_ elements: UnsafeBufferPointer<Value>)
    -> WideSum
  {
    var total = WideSum()
    // After a block of large elements, expect more: split the rest without trying first.
    var expectsLarge = false
    var start = elements.startIndex
    while start < elements.endIndex {
      let length = Value.bitWidth <= 32 ? chunkLength : blockLength
      let end = start + Swift.min(length, elements.endIndex - start)
      let chunk = UnsafeBufferPointer(rebasing: elements[start..<end])
      if Value.bitWidth <= 32 {
        // |element| ≤ 2^32: the chunk's sum stays below 2^62 in magnitude.
        var sum: Int64 = 0
        for element in chunk { sum &+= Int64(truncatingIfNeeded: element) }
        total.add(sum)
      } else if expectsLarge || !total.addSmall(chunk) {
        expectsLarge = true
        total.addSplit(chunk)
      }
      start = end
    }
    return total
  }

  /// The elements per block of 64-bit elements. A block of elements in -2^47 ..< 2^47 (or, for
  /// unsigned ones, below 2^48) has a sum within 64 bits.
  @inlinable internal static var blockLength: Int { 1 << 16 }

  /// Adds the sum of `block`, 64-bit elements, when they all are small enough that a wrapping
  /// sum of them cannot wrap; returns whether it did. Two adds and an or per element.
  @inlinable
  internal mutating func addSmall<Value: FixedWidthInteger>(_ block: UnsafeBufferPointer<Value>)
    -> Bool
  {
    // Biased by 2^47, a signed element in -2^47 ..< 2^47 is below 2^48.
    let bias: UInt64 = Value.isSigned ? 1 << 47 : 0
    var sum: UInt64 = 0
    var bits: UInt64 = 0
    for element in block {
      let biased = UInt64(truncatingIfNeeded: element) &+ bias
      sum &+= biased
      bits |= biased
    }
    guard bits < 1 << 48 else { return false }
    // The biases add up to at most 2^63: subtracting them leaves the exact sum.
    let unbiased = sum &- UInt64(block.count) &* bias
    if Value.isSigned {
      add(Int64(bitPattern: unbiased))
    } else {
      add(high: 0, low: unbiased)
    }
    return true
  }

  /// Adds the sum of `chunk`, 64-bit elements of any size, at most `chunkLength` of them.
  @inlinable
  internal mutating func addSplit<Value: FixedWidthInteger>(_ chunk: UnsafeBufferPointer<Value>) {
    // element = high × 2^32 + low, with high in -2^31 ..< 2^31 (signed) or 0 ..< 2^32, and low
    // in 0 ..< 2^32. The highs are summed exactly (biased by 2^31 when signed, so that a
    // logical shift gives them); the lows' sum, below count × 2^32 < 2^64, is what the wrapping
    // sum of the elements leaves once the highs are taken out.
    let bias: UInt64 = Value.isSigned ? 1 << 31 : 0
    var sum: UInt64 = 0
    var biasedHighs: UInt64 = 0
    for element in chunk {
      let bits = UInt64(truncatingIfNeeded: element)
      sum &+= bits
      biasedHighs &+= (bits >> 32) ^ bias
    }
    let highs = Int64(bitPattern: biasedHighs &- UInt64(chunk.count) &* bias)
    add(shiftedBy32: highs)
    add(high: 0, low: sum &- UInt64(bitPattern: highs) << 32)
  }

  /// The total as a `Value` of at most 64 bits, or `nil` when it does not fit; then `isAbove`
  /// tells whether it is above `Value.max` or below `Value.min`.
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
