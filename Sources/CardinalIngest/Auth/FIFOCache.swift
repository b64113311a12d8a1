/// A map of at most `capacity` entries that, when full, makes room by evicting the one entry inserted longest
/// ago: a flood of new keys pushes out old entries one at a time and never wipes the whole map.
struct FIFOCache<Key: Hashable, Value> {
    private var values: [Key: Value] = [:]
    /// Keys in insertion order, as a ring: `order[next]` is the oldest once the ring is full.
    private var order: [Key] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "a cache needs room for one entry")
        self.capacity = capacity
    }

    var count: Int { values.count }

    subscript(key: Key) -> Value? {
        values[key]
    }

    /// Sets the value of `key`; a new key evicts the oldest entry when the cache is full.
    mutating func set(_ value: Value, for key: Key) {
        if values.updateValue(value, forKey: key) != nil {
            return
        }
        if order.count < capacity {
            order.append(key)
        } else {
            values.removeValue(forKey: order[next])
            order[next] = key
            next = (next + 1) % capacity
        }
    }
}
