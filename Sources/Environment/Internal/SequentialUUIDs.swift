import Foundation
import TinyInternals

/// Hands out `00000000-0000-0000-0000-000000000000`, `…-000000000001`, … in order, from any
/// thread.
final class SequentialUUIDs: Sendable {
  private let count = Locked<UInt64>(0)

  /// Returns the next UUID of the sequence.
  func next() -> UUID {
    let number = count.withLock { count in
      defer { count &+= 1 }
      return count
    }
    return Self.uuid(number)
  }

  /// The UUID whose last 64 bits are `number`, big-endian, and whose other bits are zero.
  static func uuid(_ number: UInt64) -> UUID {
    var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &bytes) { raw in
      raw.storeBytes(of: number.bigEndian, toByteOffset: 8, as: UInt64.self)
    }
    return UUID(uuid: bytes)
  }
}
