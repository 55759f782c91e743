// Package catalog serves the public problem list from a Redis cache in
// front of MySQL, and invalidates it on every write; it also tells the
// judges (through the hubs) when a problem's test data version is
// obsolete (Evict).
//
// Invalidation uses a generation counter rather than deleting the cached
// value: the value lives under a key that contains the current generation,
// and a writer increments the generation after its MySQL write. A reader
// that read the generation before the write and fills the cache after it
// fills the old generation's key, which nobody reads any more, so a stale
// list can never be cached under the current generation. Old keys expire
// on their TTL.
package catalog
