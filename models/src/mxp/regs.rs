//! The vector control registers (`mxp-spec.md` §1.3): VL, ROWS, MATS and the 2-D/3-D byte
//! increments, written masked to the scratchpad's size and read back raw; increments are
//! interpreted as signed numbers whose sign bit is the mask's top bit.

/// Register indices (the SDK's `GET_*` constants).
pub mod index {
    pub const VL: u32 = 0;
    pub const ROWS: u32 = 1;
    pub const ID: u32 = 2;
    pub const IA: u32 = 3;
    pub const IB: u32 = 4;
    pub const MATS: u32 = 5;
    pub const ID3: u32 = 6;
    pub const IA3: u32 = 7;
    pub const IB3: u32 = 8;
    /// `VBX_REG_MXPCPU`: software-defined (the SDK keeps its instance pointer there).
    pub const MXPCPU: u32 = 16;
    pub const COUNT: u32 = 32;
}

/// The shape of the next vector instruction: its row length, rows, matrices and the signed
/// byte increments between rows (`id`, `ia`, `ib`) and matrices (`id3`, `ia3`, `ib3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub vl: u32,
    pub rows: u32,
    pub mats: u32,
    pub id: i32,
    pub ia: i32,
    pub ib: i32,
    pub id3: i32,
    pub ia3: i32,
    pub ib3: i32,
}

impl Shape {
    /// A 1-D shape of `vl` elements.
    pub fn vector(vl: u32) -> Shape {
        Shape { vl, rows: 1, mats: 1, id: 0, ia: 0, ib: 0, id3: 0, ia3: 0, ib3: 0 }
    }
}

#[derive(Clone, Debug)]
pub struct Registers {
    raw: [u32; index::COUNT as usize],
    /// The scratchpad size S (a power of two): counts are masked to 2S − 1, increments to S − 1.
    scratchpad_size: u32,
}

impl Registers {
    /// Registers after reset: VL = ROWS = MATS = 1, increments 0.
    pub fn new(scratchpad_size: u32) -> Self {
        assert!(scratchpad_size.is_power_of_two());
        let mut raw = [0; index::COUNT as usize];
        for r in [index::VL, index::ROWS, index::MATS] {
            raw[r as usize] = 1;
        }
        Registers { raw, scratchpad_size }
    }

    fn write_mask(&self, reg: u32) -> u32 {
        let s = self.scratchpad_size;
        match reg {
            index::VL | index::ROWS | index::MATS => s.wrapping_mul(2).wrapping_sub(1),
            index::ID | index::IA | index::IB | index::ID3 | index::IA3 | index::IB3 => s - 1,
            // 9–15: reserved for hardware, nothing there; 16–31: software, kept whole.
            9..=15 => 0,
            _ => u32::MAX,
        }
    }

    /// Writes register `reg` (0–31), masked as the hardware does.
    pub fn set(&mut self, reg: u32, value: u32) {
        let mask = self.write_mask(reg);
        self.raw[reg as usize] = value & mask;
    }

    /// Reads register `reg` (0–31): the masked value, not sign-extended.
    pub fn get(&self, reg: u32) -> u32 {
        self.raw[reg as usize]
    }

    fn increment(&self, reg: u32) -> i32 {
        let bits = self.scratchpad_size.trailing_zeros();
        let shift = 32 - bits;
        ((self.raw[reg as usize] << shift) as i32) >> shift
    }

    pub fn shape(&self) -> Shape {
        Shape {
            vl: self.get(index::VL),
            rows: self.get(index::ROWS),
            mats: self.get(index::MATS),
            id: self.increment(index::ID),
            ia: self.increment(index::IA),
            ib: self.increment(index::IB),
            id3: self.increment(index::ID3),
            ia3: self.increment(index::IA3),
            ib3: self.increment(index::IB3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increments_are_masked_and_signed_by_the_scratchpad_size() {
        // The spec's probe: vbx_set_2D(-4, 8, -12) on a 64 KiB scratchpad.
        let mut r = Registers::new(64 << 10);
        r.set(index::ID, (-4i32) as u32);
        r.set(index::IA, 8);
        r.set(index::IB, (-12i32) as u32);
        assert_eq!((r.get(index::ID), r.get(index::IA), r.get(index::IB)), (0xfffc, 8, 0xfff4));
        let s = r.shape();
        assert_eq!((s.id, s.ia, s.ib), (-4, 8, -12));
        r.set(index::VL, 0x3_0000); // masked to 2S - 1 = 0x1ffff
        assert_eq!(r.get(index::VL), 0x1_0000);
        r.set(index::MXPCPU, 0xdead_beef);
        assert_eq!(r.get(index::MXPCPU), 0xdead_beef);
        r.set(12, 5);
        assert_eq!(r.get(12), 0);
    }

    #[test]
    fn reset_is_one_element() {
        assert_eq!(Registers::new(256 << 10).shape(), Shape::vector(1));
    }
}
