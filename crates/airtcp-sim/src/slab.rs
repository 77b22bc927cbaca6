//! A slab: values parked under a slot number until taken back, slots reused. The event
//! queue carries slot numbers of packets in flight and of packets an agent delays, so
//! events stay small (they are moved by value in the heap) whatever a packet carries.

#[derive(Debug)]
pub struct Slab<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    /// Parks `value`; the slot to take it back with.
    pub fn insert(&mut self, value: T) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(value);
                slot
            }
            None => {
                self.slots.push(Some(value));
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 values parked")
            }
        }
    }

    /// The value parked in `slot`, if any.
    pub fn get(&self, slot: u32) -> Option<&T> {
        self.slots.get(slot as usize)?.as_ref()
    }

    pub fn get_mut(&mut self, slot: u32) -> Option<&mut T> {
        self.slots.get_mut(slot as usize)?.as_mut()
    }

    /// Takes back the value parked in `slot`; each slot is taken once.
    pub fn take(&mut self, slot: u32) -> T {
        let value = self.slots[slot as usize]
            .take()
            .expect("a slot is taken once");
        self.free.push(slot);
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_once_taken() {
        let mut slab = Slab::default();
        let (a, b) = (slab.insert("a"), slab.insert("b"));
        assert_eq!(slab.get(b), Some(&"b"));
        assert_eq!(slab.take(a), "a");
        assert_eq!(slab.get(a), None);
        let c = slab.insert("c");
        assert_eq!(c, a, "the freed slot");
        assert_eq!((slab.take(b), slab.take(c)), ("b", "c"));
        assert_eq!(slab.slots.len(), 2);
    }

    #[test]
    #[should_panic(expected = "taken once")]
    fn a_slot_cannot_be_taken_twice() {
        let mut slab = Slab::default();
        let a = slab.insert(1);
        slab.take(a);
        slab.take(a);
    }
}
