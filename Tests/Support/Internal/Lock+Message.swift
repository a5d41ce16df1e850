/// The message that stops a test process when a helper's lock is taken again by its holder.
let lockTakenAgainMessage =
  "TinyTestSupport: a lock was taken again by the thread that holds it (no closure runs under it)"
