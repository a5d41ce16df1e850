extension Sequence where Element: AdditiveArithmetic {
  /// Returns the sum of the elements, or `.zero` when the sequence is empty.
  ///
  /// The elements are added from left to right with `+=`, exactly as a hand-written loop does,
  /// so the result has the same semantics as that loop:
  ///
  /// - Where the elements are known to be fixed-width integers, the `FixedWidthInteger`
  ///   overload runs instead: its sum is exact, and it stops the program only when the true
  ///   total does not fit in the type. Generic code that knows only `AdditiveArithmetic` gets
  ///   this overload, where an integer `+=` traps as soon as a partial sum leaves the type's
  ///   range (even if a later element would bring it back), without a message in release
  ///   builds. For wrapping arithmetic write `reduce(0, &+)`.
  /// - Floating-point values are summed naively: rounding error grows with the count, a NaN
  ///   anywhere gives NaN, and `infinity + -infinity` gives NaN.
  ///
  /// ```swift
  /// [1.5, 2.5].sum()                                 // → 4.0
  /// [Double]().sum()                                 // → 0.0
  /// [Duration.seconds(1), .milliseconds(500)].sum()  // → 1.5 seconds
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
  /// with `+=`, so floating-point sums are naive, as for `sum()`. Where the values are known
  /// to be fixed-width integers, the `FixedWidthInteger` overload runs instead, whose sum is
  /// exact.
  ///
  /// ```swift
  /// orders.sum(of: \.total)                    // the grand total
  /// ["a", "bb"].sum(of: { Double($0.count) })  // → 3.0
  /// [String]().sum(of: { Double($0.count) })   // → 0.0
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
  /// Returns the exact sum of the elements, or zero when the sequence is empty; stops the
  /// program with a message when that sum does not fit in the element type.
  ///
  /// Unlike a loop of `+=`, the result does not depend on the order of the elements: only the
  /// true total has to fit in the type, not every partial sum along the way. When it does not
  /// fit, the program stops with a message that names the method, the type and the bound the
  /// total passed, in release builds too.
  ///
  /// ```swift
  /// [Int.max, 1, -1].sum()   // → 9223372036854775807: the total fits
  /// [Int8.min, -1, 1].sum()  // → -128
  /// [Int.max, 1].sum()       // stops: "Sequence.sum(): the total is greater than Int.max
  ///                          // (9223372036854775807), so it does not fit in Int"
  /// ```
  ///
  /// An array or another sequence in contiguous memory, of elements of at most 64 bits, is
  /// summed in wide accumulators that the compiler vectorizes, close to the speed of a wrapping
  /// `&+` loop. Other sequences add with a wrapping add and count the wraps.
  ///
  /// - Returns: The sum of all elements; zero for an empty sequence.
  /// - Complexity: O(*n*), where *n* is the length of the sequence; one pass.
  @inlinable
  public func sum() -> Element {
    let (total, isAbove) = exactSum()
    guard let total else { sumOutOfRange("sum()", Element.self, isAbove: isAbove) }
    return total
  }

  /// The exact sum of the elements, or `nil` when it does not fit in `Element`; then `isAbove`
  /// tells whether it is above `Element.max` or below `Element.min` (`false` when it fits).
  @inlinable
  internal func exactSum() -> (total: Element?, isAbove: Bool) {
    if Element.bitWidth <= 64,
      let wide = withContiguousStorageIfAvailable({ WideSum.of($0) })
    {
      return wide.exactTotal(as: Element.self)
    }
    var total = IntegerSum<Element>()
    for element in self {
      total.add(element)
    }
    return total.exactTotal
  }
}

extension Sequence {
  /// Returns the exact sum of the integers `value` gives for the elements, or zero when the
  /// sequence is empty; stops the program with a message when that sum does not fit in the
  /// value type.
  ///
  /// `value` is called once per element, in order. As for the integer `sum()`, only the true
  /// total has to fit in the type, whatever the order of the values, and the message (kept in
  /// release builds) names the method, the type and the bound the total passed.
  ///
  /// ```swift
  /// orders.sum(of: \.quantity)               // the number of items ordered
  /// [Int.max, 1, -1].sum(of: { $0 })         // → 9223372036854775807
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
    var sum = IntegerSum<Value>()
    for element in self {
      sum.add(try value(element))
    }
    let (total, isAbove) = sum.exactTotal
    guard let total else { sumOutOfRange("sum(of:)", Value.self, isAbove: isAbove) }
    return total
  }
}
