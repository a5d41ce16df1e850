/// Up to 32 candidates in stored properties, so that an element is compared with each of them
/// without a loop over the candidates: about 3.5 instructions per comparison for an `Int`, where
/// a loop (or one `contains(_:)` pass per candidate) takes about 5.
///
/// `hitsN` compares with the first `N` slots and sets bit `i` when slot `i` equals the element.
/// The slots beyond the candidates repeat the first candidate; their bits are set in `unused`,
/// so that `found | unused` is all ones once every candidate was found.
@usableFromInline
internal struct CandidateSlots<Element: Equatable> {
  @usableFromInline internal let s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14,
    s15, s16, s17, s18, s19, s20, s21, s22, s23, s24, s25, s26, s27, s28, s29, s30, s31: Element
  /// The bits of the slots beyond the candidates, up to the width used.
  @usableFromInline internal let unused: UInt32
  /// The number of slots compared: the count of candidates up to 8, then 16, 24 or 32.
  @usableFromInline internal let width: Int

  /// Holds `candidates`, 2 to 32 of them.
  @inlinable
  internal init(_ candidates: [Element]) {
    let count = candidates.count
    func at(_ index: Int) -> Element { candidates[index < count ? index : 0] }
    (
      s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16, s17, s18, s19, s20,
      s21, s22, s23, s24, s25, s26, s27, s28, s29, s30, s31
    ) = (
      at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9), at(10), at(11), at(12),
      at(13), at(14), at(15), at(16), at(17), at(18), at(19), at(20), at(21), at(22), at(23),
      at(24), at(25), at(26), at(27), at(28), at(29), at(30), at(31)
    )
    width = count <= 8 ? count : (count + 7) / 8 * 8
    let used: UInt32 = count == 32 ? .max : (1 << count) - 1
    let compared: UInt32 = width == 32 ? .max : (1 << width) - 1
    unused = compared & ~used
  }

  /// A bit for each of the first 2 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits2(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s0 { hits |= 1 << 0 }
    if element == s1 { hits |= 1 << 1 }
    return hits
  }

  /// A bit for each of the first 3 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits3(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s0 { hits |= 1 << 0 }
    if element == s1 { hits |= 1 << 1 }
    if element == s2 { hits |= 1 << 2 }
    return hits
  }

  /// A bit for each of the first 4 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits4(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s0 { hits |= 1 << 0 }
    if element == s1 { hits |= 1 << 1 }
    if element == s2 { hits |= 1 << 2 }
    if element == s3 { hits |= 1 << 3 }
    return hits
  }

  /// A bit for each of the first 5 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits5(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s0 { hits |= 1 << 0 }
    if element == s1 { hits |= 1 << 1 }
    if element == s2 { hits |= 1 << 2 }
    if element == s3 { hits |= 1 << 3 }
    if element == s4 { hits |= 1 << 4 }
    return hits
  }

  /// A bit for each of the first 6 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits6(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s0 { hits |= 1 << 0 }
    if element == s1 { hits |= 1 << 1 }
    if element == s2 { hits |= 1 << 2 }
    if element == s3 { hits |= 1 << 3 }
    if element == s4 { hits |= 1 << 4 }
    if element == s5 { hits |= 1 << 5 }
    return hits
  }

  /// A bit for each of the first 7 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits7(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s0 { hits |= 1 << 0 }
    if element == s1 { hits |= 1 << 1 }
    if element == s2 { hits |= 1 << 2 }
    if element == s3 { hits |= 1 << 3 }
    if element == s4 { hits |= 1 << 4 }
    if element == s5 { hits |= 1 << 5 }
    if element == s6 { hits |= 1 << 6 }
    return hits
  }

  /// A bit for each of slots 0 to 7 that equals `element`.
  @inlinable
  @inline(__always)
  internal func group0(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s0 { hits |= 1 << 0 }
    if element == s1 { hits |= 1 << 1 }
    if element == s2 { hits |= 1 << 2 }
    if element == s3 { hits |= 1 << 3 }
    if element == s4 { hits |= 1 << 4 }
    if element == s5 { hits |= 1 << 5 }
    if element == s6 { hits |= 1 << 6 }
    if element == s7 { hits |= 1 << 7 }
    return hits
  }

  /// A bit for each of slots 8 to 15 that equals `element`.
  @inlinable
  @inline(__always)
  internal func group1(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s8 { hits |= 1 << 8 }
    if element == s9 { hits |= 1 << 9 }
    if element == s10 { hits |= 1 << 10 }
    if element == s11 { hits |= 1 << 11 }
    if element == s12 { hits |= 1 << 12 }
    if element == s13 { hits |= 1 << 13 }
    if element == s14 { hits |= 1 << 14 }
    if element == s15 { hits |= 1 << 15 }
    return hits
  }

  /// A bit for each of slots 16 to 23 that equals `element`.
  @inlinable
  @inline(__always)
  internal func group2(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s16 { hits |= 1 << 16 }
    if element == s17 { hits |= 1 << 17 }
    if element == s18 { hits |= 1 << 18 }
    if element == s19 { hits |= 1 << 19 }
    if element == s20 { hits |= 1 << 20 }
    if element == s21 { hits |= 1 << 21 }
    if element == s22 { hits |= 1 << 22 }
    if element == s23 { hits |= 1 << 23 }
    return hits
  }

  /// A bit for each of slots 24 to 31 that equals `element`.
  @inlinable
  @inline(__always)
  internal func group3(_ element: Element) -> UInt32 {
    var hits: UInt32 = 0
    if element == s24 { hits |= 1 << 24 }
    if element == s25 { hits |= 1 << 25 }
    if element == s26 { hits |= 1 << 26 }
    if element == s27 { hits |= 1 << 27 }
    if element == s28 { hits |= 1 << 28 }
    if element == s29 { hits |= 1 << 29 }
    if element == s30 { hits |= 1 << 30 }
    if element == s31 { hits |= 1 << 31 }
    return hits
  }

  /// A bit for each of the first 8 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits8(_ element: Element) -> UInt32 {
    group0(element)
  }

  /// A bit for each of the first 16 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits16(_ element: Element) -> UInt32 {
    group0(element) | group1(element)
  }

  /// A bit for each of the first 24 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits24(_ element: Element) -> UInt32 {
    group0(element) | group1(element) | group2(element)
  }

  /// A bit for each of the first 32 slots that equals `element`.
  @inlinable
  @inline(__always)
  internal func hits32(_ element: Element) -> UInt32 {
    group0(element) | group1(element) | group2(element) | group3(element)
  }

  /// Whether every candidate occurs in `elements`; reads them until the last one is found.
  @inlinable
  internal func areAllContained<Elements: Sequence<Element>>(in elements: Elements) -> Bool {
    let complete: UInt32 = width == 32 ? .max : (1 << width) - 1
    var found = unused
    switch width {
    case 2:
      for element in elements {
        let hits = hits2(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 3:
      for element in elements {
        let hits = hits3(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 4:
      for element in elements {
        let hits = hits4(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 5:
      for element in elements {
        let hits = hits5(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 6:
      for element in elements {
        let hits = hits6(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 7:
      for element in elements {
        let hits = hits7(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 8:
      for element in elements {
        let hits = hits8(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 16:
      for element in elements {
        let hits = hits16(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 24:
      for element in elements {
        let hits = hits24(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    case 32:
      for element in elements {
        let hits = hits32(element)
        if _slowPath(hits != 0) {
          found |= hits
          if found == complete { return true }
        }
      }
    default: break
    }
    return false
  }

  /// Whether some candidate occurs in `elements`; reads them until the first match.
  @inlinable
  internal func isAnyContained<Elements: Sequence<Element>>(in elements: Elements) -> Bool {
    switch width {
    case 2:
      for element in elements where hits2(element) != 0 {
        return true
      }
    case 3:
      for element in elements where hits3(element) != 0 {
        return true
      }
    case 4:
      for element in elements where hits4(element) != 0 {
        return true
      }
    case 5:
      for element in elements where hits5(element) != 0 {
        return true
      }
    case 6:
      for element in elements where hits6(element) != 0 {
        return true
      }
    case 7:
      for element in elements where hits7(element) != 0 {
        return true
      }
    case 8:
      for element in elements where hits8(element) != 0 {
        return true
      }
    case 16:
      for element in elements where hits16(element) != 0 {
        return true
      }
    case 24:
      for element in elements where hits24(element) != 0 {
        return true
      }
    case 32:
      for element in elements where hits32(element) != 0 {
        return true
      }
    default: break
    }
    return false
  }
}
