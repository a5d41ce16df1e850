/// The pure state machine behind serial delivery: a queue of pending batches and whether some
/// thread is delivering.
///
/// A thread that makes a change submits its batch. When nobody is delivering, the submitting
/// thread becomes the deliverer and gets the batch back to deliver itself; otherwise the batch
/// waits for the thread that is delivering, which asks for the ``next()`` batch after each one
/// until the queue is empty. So batches are delivered one at a time, in submission order, by
/// exactly one thread at a time, and never while the lock around this state is held.
@usableFromInline
struct DeliveryQueue<Batch> {
  @usableFromInline var pending = FIFO<Batch>()

  /// Whether some thread is delivering batches.
  @usableFromInline var isDelivering = false

  @inlinable
  init() {}

  /// The number of batches waiting for the deliverer.
  var pendingCount: Int { pending.count }

  /// Submits a batch. Returns it when the caller must deliver it now (it has become the
  /// deliverer), or `nil` when it was queued for the thread that is delivering.
  @inlinable
  mutating func submit(_ batch: Batch) -> Batch? {
    if isDelivering {
      pending.append(batch)
      return nil
    }
    isDelivering = true
    return batch
  }

  /// Called by the deliverer after each batch: returns the next batch to deliver, or `nil`,
  /// and then the caller is no longer the deliverer.
  @inlinable
  mutating func next() -> Batch? {
    // The emptiness check inlines; `popFirst()` is a call, made only when a batch waits.
    if !pending.isEmpty, let batch = pending.popFirst() {
      return batch
    }
    isDelivering = false
    return nil
  }
}

extension DeliveryQueue: Sendable where Batch: Sendable {}
