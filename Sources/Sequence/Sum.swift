extension Sequence where Element: AdditiveArithmetic {
  /// Returns the sum of the elements, or `.zero` when the sequence is empty.
  ///
  /// The elements are added from left to right with `+=`, exactly as a hand-written loop does,
  /// so the result has the same semantics as that loop:
  ///
  /// - Fixed-width integers trap on overflow, like `+`, as soon as a partial sum leaves the
  ///   type's range (even if a later element would bring it back). Where the elements are known
  ///   to be integers, the `FixedWidthInteger` overload runs instead, whose message names the
  ///   type and the values in release builds too. For wrapping arithmetic write
  ///   `reduce(0, &+)`; to detect overflow without trapping, use
  ///   `addingReportingOverflow(_:)` in a loop.
  /// - Floating-point values are summed naively: rounding error grows with the count, a NaN
  ///   anywhere gives NaN, and `infinity + -infinity` gives NaN.
  ///
  /// ```swift
  /// [1, 2, 3].sum()                            // 6
  /// [Int]().sum()                              // 0
  /// [Duration.seconds(1), .milliseconds(500)].sum()  // 1.5 seconds
  /// ```
  ///
  /// - Returns: The sum of all elements; `.zero` for an empty sequence.
  /// - Complexity: O(*n*), where *n* is the length of the sequence; one pass.
  @inlinable
  public func sum() -> Element {
    var total = Element.zero
    for element in self {
      total += element
    }
    return total
  }
}

extension Sequence {
  /// Returns the sum of the values `value` gives for the elements, or `.zero` when the
  /// sequence is empty.
  ///
  /// `value` is called once per element, in order. The values are added from left to right
  /// with `+=`, so integer overflow traps like `+` (with a message naming the type and the
  /// values) and floating-point sums are naive, as for `sum()`.
  ///
  /// ```swift
  /// orders.sum(of: \.total)                    // the grand total
  /// words.sum(of: \.count)                     // the number of characters
  /// [String]().sum(of: \.count)                // 0
  /// ```
  ///
  /// - Parameter value: Returns the value to add for an element.
  /// - Returns: The sum of the values; `.zero` for an empty sequence.
  /// - Throws: The first error `value` throws; the remaining elements are not read.
  /// - Complexity: O(*n*), where *n* is the length of the sequence; one pass.
  @inlinable
  public func sum<Value: AdditiveArithmetic, Failure: Error>(
    of value: (Element) throws(Failure) -> Value
  ) throws(Failure) -> Value {
    var total = Value.zero
    for element in self {
      total += try value(element)
    }
    return total
  }
}

extension Sequence where Element: FixedWidthInteger {
  /// Returns the sum of the elements, or zero when the sequence is empty; stops the program
  /// with a message if a partial sum overflows.
  ///
  /// The same sum as the `AdditiveArithmetic` overload, left to right, for integer elements:
  /// when a partial sum leaves the type's range the program stops, as `+` does, and the message
  /// (kept in release builds, where `+` gives none) names the type, the partial sum and the
  /// element.
  ///
  /// ```swift
  /// [Int.max, -1, 1].sum()   // Int.max: every partial sum is in range
  /// [Int.max, 1, -1].sum()   // stops: "Sequence.sum(): Int overflow adding 1 to 9223372036854775807"
  /// ```
  ///
  /// - Returns: The sum of all elements; zero for an empty sequence.
  /// - Complexity: O(*n*), where *n* is the length of the sequence; one pass.
  @inlinable
  public func sum() -> Element {
    var total = Element.zero
    for element in self {
      let (partial, overflow) = total.addingReportingOverflow(element)
      if _slowPath(overflow) { sumOverflow("sum()", total, element) }
      total = partial
    }
    return total
  }
}

extension Sequence {
  /// Returns the sum of the integers `value` gives for the elements, or zero when the
  /// sequence is empty; stops the program with a message if a partial sum overflows.
  ///
  /// The same sum as the `AdditiveArithmetic` overload, for integer values: when a partial
  /// sum leaves the type's range the program stops, with a message (kept in release builds)
  /// naming the type, the partial sum and the value.
  ///
  /// ```swift
  /// orders.sum(of: \.quantity)   // the number of items ordered
  /// ```
  ///
  /// - Parameter value: Returns the value to add for an element.
  /// - Returns: The sum of the values; zero for an empty sequence.
  /// - Throws: The first error `value` throws; the remaining elements are not read.
  /// - Complexity: O(*n*), where *n* is the length of the sequence; one pass.
  @inlinable
  public func sum<Value: FixedWidthInteger, Failure: Error>(
    of value: (Element) throws(Failure) -> Value
  ) throws(Failure) -> Value {
    var total = Value.zero
    for element in self {
      let next = try value(element)
      let (partial, overflow) = total.addingReportingOverflow(next)
      if _slowPath(overflow) { sumOverflow("sum(of:)", total, next) }
      total = partial
    }
    return total
  }
}

/// Stops the program: adding `value` to the partial sum `total` overflowed.
@usableFromInline
@inline(never)
internal func sumOverflow<Value: FixedWidthInteger>(
  _ method: StaticString, _ total: Value, _ value: Value
) -> Never {
  fatalError("Sequence.\(method): \(Value.self) overflow adding \(value) to \(total)")
}
