/// A signed integer of any size: the model that exact sums are checked against.
///
/// Two's complement in little-endian 32-bit limbs, as short as the value allows. Only what the
/// tests need: conversion from any `BinaryInteger`, addition, negation and comparison.
struct BigInteger: Comparable, CustomStringConvertible {
  /// The limbs, least significant first; the top bit of the last one is the sign.
  private var limbs: [UInt32]

  init<Source: BinaryInteger>(_ value: Source) {
    var limbs: [UInt32] = []
    for word in value.words {
      var rest = UInt64(word)
      for _ in 0..<(UInt.bitWidth / 32) {
        limbs.append(UInt32(truncatingIfNeeded: rest))
        rest >>= 32
      }
    }
    // An unsigned value whose top bit is set needs a sign limb to stay non-negative.
    if !Source.isSigned, let last = limbs.last, last & 0x8000_0000 != 0 { limbs.append(0) }
    self.limbs = limbs.isEmpty ? [0] : limbs
    normalize()
  }

  var isNegative: Bool { limbs[limbs.count - 1] & 0x8000_0000 != 0 }

  private var signLimb: UInt32 { isNegative ? .max : 0 }

  /// Drops the limbs that only repeat the sign.
  private mutating func normalize() {
    while limbs.count > 1 {
      let last = limbs[limbs.count - 1]
      let belowSign = limbs[limbs.count - 2] & 0x8000_0000 != 0
      guard (last == 0 && !belowSign) || (last == .max && belowSign) else { break }
      limbs.removeLast()
    }
  }

  private func limb(_ index: Int) -> UInt32 {
    index < limbs.count ? limbs[index] : signLimb
  }

  static func + (left: BigInteger, right: BigInteger) -> BigInteger {
    let count = Swift.max(left.limbs.count, right.limbs.count) + 1
    var result: [UInt32] = []
    var carry: UInt64 = 0
    for index in 0..<count {
      let sum = UInt64(left.limb(index)) + UInt64(right.limb(index)) + carry
      result.append(UInt32(truncatingIfNeeded: sum))
      carry = sum >> 32
    }
    var sum = left
    sum.limbs = result
    sum.normalize()
    return sum
  }

  static prefix func - (value: BigInteger) -> BigInteger {
    var inverted = value
    inverted.limbs = (value.limbs + [value.signLimb]).map { ~$0 }
    return inverted + BigInteger(1)
  }

  static func < (left: BigInteger, right: BigInteger) -> Bool {
    (left + -right).isNegative
  }

  static func == (left: BigInteger, right: BigInteger) -> Bool {
    left.limbs == right.limbs
  }

  /// Whether the value fits in `Target`.
  func fits<Target: FixedWidthInteger>(in _: Target.Type) -> Bool {
    BigInteger(Target.min) <= self && self <= BigInteger(Target.max)
  }

  var description: String {
    "0x" + (isNegative ? "-" : "")
      + (isNegative ? -self : self).limbs.reversed()
      .map { String($0, radix: 16) }.joined(separator: "_")
  }
}

extension Sequence where Element: BinaryInteger {
  /// The exact sum, by the model.
  var modelSum: BigInteger {
    reduce(BigInteger(0)) { $0 + BigInteger($1) }
  }
}
