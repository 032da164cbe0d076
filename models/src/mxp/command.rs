//! The instruction port's 32-bit command encoding (`mxp-spec.md` §2.2–2.4): word 0 says what
//! the command is and how many words follow; [`decode`] turns complete word groups into
//! [`Command`]s. Anything the encoding does not define is a [`Malformed`] command.

use std::fmt;

/// Element size of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Size {
    Byte = 1,
    Half = 2,
    Word = 4,
}

impl Size {
    pub const fn bytes(self) -> u32 {
        self as u32
    }

    fn from_code(code: u32) -> Option<Size> {
        match code {
            0 => Some(Size::Byte),
            1 => Some(Size::Half),
            2 => Some(Size::Word),
            _ => None,
        }
    }

    fn code(self) -> u32 {
        self.bytes() / 2
    }

    /// The letter of a mode name (§2.6).
    fn letter(self) -> char {
        match self {
            Size::Byte => 'B',
            Size::Half => 'H',
            Size::Word => 'W',
        }
    }
}

/// The test of a conditional move or mask set-up (§3.5), in hardware-opcode order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Test {
    Lez,
    Gtz,
    /// Alias FS (flag set).
    Ltz,
    /// Alias FC (flag clear).
    Gez,
    Z,
    Nz,
}

impl Test {
    const ALL: [Test; 6] = [Test::Lez, Test::Gtz, Test::Ltz, Test::Gez, Test::Z, Test::Nz];

    fn name(self) -> &'static str {
        match self {
            Test::Lez => "LEZ",
            Test::Gtz => "GTZ",
            Test::Ltz => "LTZ",
            Test::Gez => "GEZ",
            Test::Z => "Z",
            Test::Nz => "NZ",
        }
    }
}

/// A vector operation (hardware opcode in the comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    Vmov,    // 4
    Vand,    // 5
    Vor,     // 6
    Vxor,    // 7
    Vadd,    // 8
    Vsub,    // 9
    Vaddc,   // 10
    Vsubb,   // 11
    Vmul,    // 12 (VMULLO)
    Vmulhi,  // 13
    Vmulfxp, // 14
    Vsubfxp, // 15
    Vshl,    // 16
    Vshr,    // 17
    Vslt,    // 20
    Vsgt,    // 21
    /// VCMV_LEZ … VCMV_NZ (24–29).
    Vcmv(Test),
    Vaddfxp,  // 30
    Vabsdiff, // 31
    /// VSET_MSK_LEZ … VSET_MSK_NZ (40–45).
    VsetMsk(Test),
    /// VCUSTOM0 … VCUSTOM15 (48–63).
    Vcustom(u8),
}

/// The opcodes without a test or unit number: hardware opcode and name (§2.3), the one
/// table of them.
const PLAIN_OPCODES: [(u32, Opcode, &str); 18] = [
    (4, Opcode::Vmov, "VMOV"),
    (5, Opcode::Vand, "VAND"),
    (6, Opcode::Vor, "VOR"),
    (7, Opcode::Vxor, "VXOR"),
    (8, Opcode::Vadd, "VADD"),
    (9, Opcode::Vsub, "VSUB"),
    (10, Opcode::Vaddc, "VADDC"),
    (11, Opcode::Vsubb, "VSUBB"),
    (12, Opcode::Vmul, "VMUL"),
    (13, Opcode::Vmulhi, "VMULHI"),
    (14, Opcode::Vmulfxp, "VMULFXP"),
    (15, Opcode::Vsubfxp, "VSUBFXP"),
    (16, Opcode::Vshl, "VSHL"),
    (17, Opcode::Vshr, "VSHR"),
    (20, Opcode::Vslt, "VSLT"),
    (21, Opcode::Vsgt, "VSGT"),
    (30, Opcode::Vaddfxp, "VADDFXP"),
    (31, Opcode::Vabsdiff, "VABSDIFF"),
];
/// First hardware opcode of the VCMV, VSET_MSK and VCUSTOM groups.
const VCMV: u32 = 24;
const VSET_MSK: u32 = 40;
const VCUSTOM: u32 = 48;

impl Opcode {
    fn from_hw(op: u32) -> Option<Opcode> {
        let test = |first: u32| Test::ALL[(op - first) as usize];
        Some(match op {
            VCMV..=29 => Opcode::Vcmv(test(VCMV)),
            VSET_MSK..=45 => Opcode::VsetMsk(test(VSET_MSK)),
            VCUSTOM..=63 => Opcode::Vcustom((op - VCUSTOM) as u8),
            _ => PLAIN_OPCODES.iter().find(|&&(hw, ..)| hw == op)?.1,
        })
    }

    /// The hardware opcode (bits 5:0 of word 0).
    fn hw(self) -> u32 {
        let test = |t: Test| Test::ALL.iter().position(|&x| x == t).expect("every test is listed") as u32;
        match self {
            Opcode::Vcmv(t) => VCMV + test(t),
            Opcode::VsetMsk(t) => VSET_MSK + test(t),
            Opcode::Vcustom(n) => VCUSTOM + u32::from(n),
            plain => PLAIN_OPCODES.iter().find(|&&(_, op, _)| op == plain).expect("every opcode is listed").0,
        }
    }
}

/// The instruction's name as the SDK writes it (`VADD`, `VCMV_LEZ`, `VCUSTOM1`).
impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Opcode::Vcmv(t) => write!(f, "VCMV_{}", t.name()),
            Opcode::VsetMsk(t) => write!(f, "VSET_MSK_{}", t.name()),
            Opcode::Vcustom(n) => write!(f, "VCUSTOM{n}"),
            plain => {
                let name = PLAIN_OPCODES.iter().find(|&&(_, op, _)| op == plain).expect("every opcode is listed").2;
                f.write_str(name)
            }
        }
    }
}

/// Size and signedness of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    pub size: Size,
    pub signed: bool,
}

/// What operand A is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SrcA {
    /// A scratchpad vector at this byte address.
    Vector(u32),
    /// A scalar: the instruction word (truncated to A's size and extended by its sign, §3.1).
    Scalar(u32),
}

/// What operand B is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SrcB {
    /// A scratchpad vector at this byte address.
    Vector(u32),
    /// The enumerated vector 0, 1, 2, … (restarting every row).
    Enumerated,
}

/// One vector instruction, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VectorInsn {
    pub op: Opcode,
    /// D's size and the operation's sign (bit 6).
    pub d: Operand,
    pub a: Operand,
    pub b: Operand,
    pub src_a: SrcA,
    pub src_b: SrcB,
    /// Scratchpad byte address of D.
    pub dest: u32,
    /// `MOD_MASKED`: only elements whose mask bit is set are written.
    pub masked: bool,
    /// `MOD_ACC`: each row reduces to one element at the row's D address.
    pub acc: bool,
}

impl VectorInsn {
    /// The instruction's word 0 (§2.2): what [`decode`] reads opcode, sizes, signs, operand
    /// types and modifiers from.
    pub fn word0(&self) -> u32 {
        let sign = |o: Operand, bit: u32| u32::from(o.signed) << bit;
        self.op.hw()
            | sign(self.d, 6)
            | sign(self.a, 7)
            | sign(self.b, 8)
            | self.d.size.code() << 9
            | self.a.size.code() << 11
            | self.b.size.code() << 13
            | u32::from(self.src_b == SrcB::Enumerated) << 15
            | u32::from(matches!(self.src_a, SrcA::Scalar(_))) << 16
            | if self.masked { MOD_MASKED } else { 0 }
            | if self.acc { MOD_ACC } else { 0 }
    }
}

impl VectorInsn {
    /// The SDK call that issues the instruction: `vbx`, `vbx_acc`, `vbx_masked`,
    /// `vbx_masked_acc`.
    pub fn sdk_call(&self) -> &'static str {
        match (self.masked, self.acc) {
            (false, false) => "vbx",
            (false, true) => "vbx_acc",
            (true, false) => "vbx_masked",
            (true, true) => "vbx_masked_acc",
        }
    }

    /// The mode in the canonical 8-letter form (§2.6): types, D/A/B sizes, D/A/B signs
    /// (`SVWWWSSS`).
    pub fn mode_name(&self) -> String {
        let a = if matches!(self.src_a, SrcA::Scalar(_)) { 'S' } else { 'V' };
        let b = if self.src_b == SrcB::Enumerated { 'E' } else { 'V' };
        let sign = |o: Operand| if o.signed { 'S' } else { 'U' };
        let (d, oa, ob) = (self.d, self.a, self.b);
        [a, b, d.size.letter(), oa.size.letter(), ob.size.letter(), sign(d), sign(oa), sign(ob)].iter().collect()
    }
}

/// The instruction as the SDK call that issues it: `vbx(SVWWWSSS, VADD)`,
/// `vbx_masked_acc(VVHBBUUU, VMUL)`.
impl fmt::Display for VectorInsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({}, {})", self.sdk_call(), self.mode_name(), self.op)
    }
}

/// DMA direction, as the SDK names it.
pub use mxpsim_detector::event::DmaDir;

/// A decoded command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Vector(VectorInsn),
    /// 1-D DMA of `len` bytes between external address `ext` and scratchpad address `sp`.
    Dma {
        dir: DmaDir,
        ext: u32,
        sp: u32,
        len: u32,
    },
    /// 2-D DMA set-up, part 1: scratchpad row increment and number of rows.
    Dma2dSetup {
        sp_inc: i32,
        rows: u32,
    },
    /// 2-D DMA set-up, part 2: external row increment.
    Dma2dExtInc {
        ext_inc: i32,
    },
    /// 2-D DMA of `rows` (from the set-up) rows of `row_len` bytes.
    Dma2d {
        dir: DmaDir,
        ext: u32,
        sp: u32,
        row_len: u32,
    },
    /// VL, ROWS, MATS (raw words; the engine masks them).
    SetVl {
        vl: u32,
        rows: u32,
        mats: u32,
    },
    /// 2-D strides, in the port's order: IA, IB, ID (raw words).
    Set2d {
        ia: u32,
        ib: u32,
        id: u32,
    },
    /// 3-D strides: IA3, IB3, ID3 (raw words).
    Set3d {
        ia: u32,
        ib: u32,
        id: u32,
    },
    /// Read control register `reg` (reply).
    GetParam {
        reg: u32,
    },
    /// Write control register `reg`.
    SetParam {
        reg: u32,
        value: u32,
    },
    /// Reply once every earlier command has completed.
    Sync,
    /// Reply with the mask status (§3.9).
    GetMask,
}

/// A word 0 the encoding does not define.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub word0: u32,
    pub reason: &'static str,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed MXP command word {:#010x}: {}", self.word0, self.reason)
    }
}

const MOD_MASKED: u32 = 1 << 17;
const MOD_ACC: u32 = 1 << 18;
const EXT: u32 = MOD_MASKED | MOD_ACC;

/// How many words (word 0 included) the command starting with `word0` has.
pub fn length(word0: u32) -> Result<usize, Malformed> {
    let op = word0 & 0x3f;
    if op < 4 && word0 & EXT == EXT {
        return match op {
            1 => Ok(2), // SET_PARAM
            _ => Ok(1), // GET_PARAM, SYNC, GET_MASK
        };
    }
    if word0 >> 19 != 0 {
        return Err(Malformed { word0, reason: "bits 31:19 must be zero" });
    }
    Ok(4)
}

fn signed(word: u32) -> i32 {
    word as i32
}

/// Decodes one complete command (`words.len() == length(words[0])`).
pub fn decode(words: &[u32]) -> Result<Command, Malformed> {
    let word0 = words[0];
    let bad = |reason| Err(Malformed { word0, reason });
    let op = word0 & 0x3f;
    if op < 4 && word0 & EXT == EXT {
        let reg = (word0 >> 6) & 0x1f;
        if word0 & !(EXT | 0x3f | (0x1f << 6)) != 0 {
            return bad("unknown bits in an extended control command");
        }
        return Ok(match op {
            0 => Command::GetParam { reg },
            1 => Command::SetParam { reg, value: words[1] },
            2 => Command::Sync,
            _ => Command::GetMask,
        });
    }
    let (w1, w2, w3) = (words[1], words[2], words[3]);
    let dir = |op| if op == 0 { DmaDir::ToHost } else { DmaDir::ToScratchpad };
    match word0 {
        0x0000_0000 | 0x0000_0001 => return Ok(Command::Dma { dir: dir(op), ext: w1, sp: w2, len: w3 }),
        0x0004_0000 | 0x0004_0001 => return Ok(Command::Dma2d { dir: dir(op), ext: w1, sp: w2, row_len: w3 }),
        0x0001_8001 => return Ok(Command::Dma2dSetup { sp_inc: signed(w1), rows: w2 }),
        0x0001_0000 => return Ok(Command::Dma2dExtInc { ext_inc: signed(w1) }),
        0x0000_0002 => return Ok(Command::SetVl { vl: w1, rows: w2, mats: w3 }),
        0x0004_0002 => return Ok(Command::Set2d { ia: w1, ib: w2, id: w3 }),
        0x0002_0002 => return Ok(Command::Set3d { ia: w1, ib: w2, id: w3 }),
        _ if op < 4 => return bad("unknown control command"),
        _ => {}
    }
    let opcode = Opcode::from_hw(op).ok_or(Malformed { word0, reason: "unassigned opcode" })?;
    let size =
        |shift: u32| Size::from_code((word0 >> shift) & 3).ok_or(Malformed { word0, reason: "operand size code 3" });
    let operand = |shift: u32, sign_bit: u32| -> Result<Operand, Malformed> {
        Ok(Operand { size: size(shift)?, signed: word0 & (1 << sign_bit) != 0 })
    };
    Ok(Command::Vector(VectorInsn {
        op: opcode,
        d: operand(9, 6)?,
        a: operand(11, 7)?,
        b: operand(13, 8)?,
        src_a: if word0 & (1 << 16) != 0 { SrcA::Scalar(w1) } else { SrcA::Vector(w1) },
        src_b: if word0 & (1 << 15) != 0 { SrcB::Enumerated } else { SrcB::Vector(w2) },
        dest: w3,
        masked: word0 & MOD_MASKED != 0,
        acc: word0 & MOD_ACC != 0,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(word0: u32, a: u32, b: u32, d: u32) -> VectorInsn {
        assert_eq!(length(word0), Ok(4));
        match decode(&[word0, a, b, d]) {
            Ok(Command::Vector(v)) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn worked_encodings_of_the_spec() {
        // vbx(VVW, VADD, d, a, b)
        let v = vector(0x0000_55c8, 0x100, 0x200, 0x300);
        assert_eq!(v.op, Opcode::Vadd);
        assert_eq!(
            (v.d, v.a, v.b),
            (
                Operand { size: Size::Word, signed: true },
                Operand { size: Size::Word, signed: true },
                Operand { size: Size::Word, signed: true }
            )
        );
        assert_eq!(
            (v.src_a, v.src_b, v.dest, v.masked, v.acc),
            (SrcA::Vector(0x100), SrcB::Vector(0x200), 0x300, false, false)
        );
        // vbx(SVHU, VMUL, d, 25, b)
        let v = vector(0x0001_2a0c, 25, 0x200, 0x300);
        assert_eq!((v.op, v.src_a, v.d.size, v.d.signed), (Opcode::Vmul, SrcA::Scalar(25), Size::Half, false));
        // vbx(SEH, VAND, d, 0xf, 0)
        let v = vector(0x0001_abc5, 0xf, 0, 0x300);
        assert_eq!((v.op, v.src_a, v.src_b, v.d.signed), (Opcode::Vand, SrcA::Scalar(0xf), SrcB::Enumerated, true));
        // vbx_acc(VVWBU, VABSDIFF, d, a, b)
        let v = vector(0x0004_041f, 1, 2, 3);
        assert_eq!(
            (v.op, v.acc, v.d.size, v.a.size, v.b.size, v.d.signed),
            (Opcode::Vabsdiff, true, Size::Word, Size::Byte, Size::Byte, false)
        );
        // vbx(SVWWHU, VMULLO, d, 0x10101, b)
        let v = vector(0x0001_340c, 0x10101, 2, 3);
        assert_eq!((v.d.size, v.a.size, v.b.size), (Size::Word, Size::Word, Size::Half));
        // vbx_masked(SVW, VADD, v, 1, v) and the mask set-up VSET_MSK_NZ
        assert!(vector(0x0003_55c8, 1, 2, 2).masked);
        assert_eq!(vector(0x0001_55ed, 0, 2, 0).op, Opcode::VsetMsk(Test::Nz));
        assert_eq!(vector(0x0000_55d9, 0, 2, 0).op, Opcode::Vcmv(Test::Gtz));
        assert_eq!(vector(0x0000_55f1, 0, 2, 0).op, Opcode::Vcustom(1));
    }

    #[test]
    fn word0_is_what_decode_read() {
        for word0 in 4..1u32 << 19 {
            if let Ok(Command::Vector(v)) = decode(&[word0, 1, 2, 3]) {
                assert_eq!(v.word0(), word0, "{v:?}");
            }
        }
    }

    #[test]
    fn instructions_are_named_as_the_sdk_calls_them() {
        assert_eq!(vector(0x0000_55c8, 0x100, 0x200, 0x300).to_string(), "vbx(VVWWWSSS, VADD)");
        assert_eq!(vector(0x0001_2a0c, 25, 0x200, 0x300).to_string(), "vbx(SVHHHUUU, VMUL)");
        assert_eq!(vector(0x0004_041f, 1, 2, 3).to_string(), "vbx_acc(VVWBBUUU, VABSDIFF)");
        assert_eq!(vector(0x0003_55c8, 1, 2, 2).to_string(), "vbx_masked(SVWWWSSS, VADD)");
        assert_eq!(vector(0x0001_55ed, 0, 2, 0).to_string(), "vbx(SVWWWSSS, VSET_MSK_NZ)");
        assert_eq!(vector(0x0000_55f1, 0, 2, 0).to_string(), "vbx(VVWWWSSS, VCUSTOM1)");
        assert_eq!(vector(0x0001_abc5, 0xf, 0, 0x300).to_string(), "vbx(SEHHHSSS, VAND)");
    }

    #[test]
    fn control_commands() {
        assert_eq!(
            decode(&[0, 0x8000_0000, 0x40, 64]),
            Ok(Command::Dma { dir: DmaDir::ToHost, ext: 0x8000_0000, sp: 0x40, len: 64 })
        );
        assert_eq!(
            decode(&[1, 0x8000_0000, 0x40, 64]).unwrap(),
            Command::Dma { dir: DmaDir::ToScratchpad, ext: 0x8000_0000, sp: 0x40, len: 64 }
        );
        assert_eq!(
            decode(&[0x0004_0002, 8, (-12i32) as u32, (-4i32) as u32]),
            Ok(Command::Set2d { ia: 8, ib: 0xffff_fff4, id: 0xffff_fffc })
        );
        assert_eq!(decode(&[0x0002_0002, 1, 2, 3]), Ok(Command::Set3d { ia: 1, ib: 2, id: 3 }));
        assert_eq!(decode(&[2, 10, 3, 1]), Ok(Command::SetVl { vl: 10, rows: 3, mats: 1 }));
        assert_eq!(decode(&[0x0001_8001, 64, 5, 320]), Ok(Command::Dma2dSetup { sp_inc: 64, rows: 5 }));
        assert_eq!(decode(&[0x0001_0000, (-100i32) as u32, 0, 0]), Ok(Command::Dma2dExtInc { ext_inc: -100 }));
        assert_eq!(
            decode(&[0x0004_0001, 0x8000_0000, 0, 16]),
            Ok(Command::Dma2d { dir: DmaDir::ToScratchpad, ext: 0x8000_0000, sp: 0, row_len: 16 })
        );
        for (w, len, cmd) in [
            (0x0006_0002, 1, Command::Sync),
            (0x0006_0003, 1, Command::GetMask),
            (0x0006_0040, 1, Command::GetParam { reg: 1 }),
            (0x0006_0401, 2, Command::SetParam { reg: 16, value: 7 }),
        ] {
            assert_eq!(length(w), Ok(len));
            assert_eq!(decode(&[w, 7]), Ok(cmd));
        }
    }

    #[test]
    fn undefined_encodings_are_malformed() {
        for w in [
            0x0000_0012u32,
            0x0000_0016,
            0x0000_0020,
            0x0000_002e,
            0x0000_0003,
            0x0008_0008,
            0x0000_0608 | (3 << 9),
            0x0000_0042,
        ] {
            let result = length(w).and_then(|n| decode(&[w, 0, 0, 0][..n.max(1)]));
            assert!(result.is_err(), "{w:#x} decoded as {result:?}");
        }
        assert_eq!(length(0x0010_0008).unwrap_err().reason, "bits 31:19 must be zero");
    }
}
