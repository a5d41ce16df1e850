extension Sequence where Element: AdditiveArithmetic {
  /// Returns the sum of the elements, or `.zero` when the sequence is empty.
  ///
  /// The elements are added from left to right with `+=`, exactly as a hand-written loop does,
  /// so the result has the same semantics as that loop:
  ///
  /// - Fixed-width integers trap on overflow, like `+`. For wrapping arithmetic write
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
  /// with `+=`, so integer overflow traps like `+` and floating-point sums are naive; see
  /// ``Swift/Sequence/sum()``.
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
