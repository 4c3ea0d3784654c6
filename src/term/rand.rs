//! The named random stream `rand(seed, offset)`: Triton's `tl.rand` (Triton 3.x
//! `language/random.py`), defined once here for the spec, the formula and the prover
//! (docs/semantics.md, "Specs").
//!
//! `rand(seed, offset)` is Philox 4x32 with 10 rounds ([`philox`]) on counter (offset's
//! low word, its high word, 0, 0) and key (seed's low word, its high word), its first
//! word read as an int32, folded to non-negative (`w < 0 ? ~w : w`), converted to f32
//! and multiplied by the f32 [`SCALE`] (`4.6566127342e-10` rounded to f32, bits
//! `0x2fffffff`): [`triton_rand`], bit for bit.
//!
//! The rounds are written once, generic over a [`Word`] arithmetic: on `u32`s they are
//! the concrete stream (checked against Random123's known answers), and the all-sizes
//! prover runs the very same function on its bit-vector terms to get the one reference
//! expansion a kernel's Philox must be identical to (`verify::rand`).
//!
//! Invariant: pure and total; no rounding beyond the f32 steps named above.

/// Philox 4x32's multipliers and key increments (Random123, Triton's `philox_impl`).
pub const ROUND_A: u32 = 0xD251_1F53;
pub const ROUND_B: u32 = 0xCD9E_8D57;
pub const KEY_A: u32 = 0x9E37_79B9;
pub const KEY_B: u32 = 0xBB67_AE85;
/// Triton's default number of rounds (`N_ROUNDS_DEFAULT`).
pub const ROUNDS: usize = 10;

/// The f32 scale of `uint_to_uniform_float` for 32-bit words: Triton's Python float
/// `4.6566127342e-10` rounded to f32 as its IR constant is (`0x2fffffff`).
pub const SCALE_BITS: u32 = 0x2fff_ffff;

/// [`SCALE_BITS`] as an f32.
pub fn scale() -> f32 {
    f32::from_bits(SCALE_BITS)
}

/// The arithmetic Philox needs on 32-bit words: the high and low halves of a product,
/// xor and addition modulo 2^32.
pub trait Word {
    type W: Clone;
    fn word(&mut self, c: u32) -> Self::W;
    fn mulhi(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
    fn mullo(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
    fn xor(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
    fn add(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
}

/// `ROUNDS` rounds of Philox 4x32 on `counter` and `key`, as Triton's `philox_impl`
/// writes them: `c0 = hi(B·c2) ^ c1 ^ k0`, `c2 = hi(A·c0) ^ c3 ^ k1`, `c1 = lo(B·c2)`,
/// `c3 = lo(A·c0)`, then the key raised by `KEY_A`, `KEY_B`.
pub fn philox<A: Word>(a: &mut A, counter: [A::W; 4], key: [A::W; 2]) -> [A::W; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    let (ra, rb) = (a.word(ROUND_A), a.word(ROUND_B));
    let (ka, kb) = (a.word(KEY_A), a.word(KEY_B));
    for _ in 0..ROUNDS {
        let (old0, old2) = (c0.clone(), c2.clone());
        let h0 = a.mulhi(&rb, &old2);
        let x0 = a.xor(&h0, &c1);
        c0 = a.xor(&x0, &k0);
        let h2 = a.mulhi(&ra, &old0);
        let x2 = a.xor(&h2, &c3);
        c2 = a.xor(&x2, &k1);
        c1 = a.mullo(&rb, &old2);
        c3 = a.mullo(&ra, &old0);
        k0 = a.add(&k0, &ka);
        k1 = a.add(&k1, &kb);
    }
    [c0, c1, c2, c3]
}

/// Concrete words.
pub struct Concrete;

impl Word for Concrete {
    type W = u32;
    fn word(&mut self, c: u32) -> u32 {
        c
    }
    fn mulhi(&mut self, a: &u32, b: &u32) -> u32 {
        ((u64::from(*a) * u64::from(*b)) >> 32) as u32
    }
    fn mullo(&mut self, a: &u32, b: &u32) -> u32 {
        a.wrapping_mul(*b)
    }
    fn xor(&mut self, a: &u32, b: &u32) -> u32 {
        a ^ b
    }
    fn add(&mut self, a: &u32, b: &u32) -> u32 {
        a.wrapping_add(*b)
    }
}

/// Philox4x32-10 of concrete words.
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    philox(&mut Concrete, counter, key)
}

/// The counter and key of `rand(seed, offset)`: (offset lo, offset hi, 0, 0) and
/// (seed lo, seed hi), both read as 64-bit two's complement (an i32 seed sign-extended,
/// as Triton's `seed.to(tl.uint64)` does).
pub fn counter_and_key(seed: i64, offset: i64) -> ([u32; 4], [u32; 2]) {
    let (s, o) = (seed as u64, offset as u64);
    (
        [o as u32, (o >> 32) as u32, 0, 0],
        [s as u32, (s >> 32) as u32],
    )
}

/// The non-negative int32 `rand` converts: the first word as an int32, `~w` where it
/// is negative (Triton's `tl.where(x < 0, ~x, x)`).
pub fn folded_word(seed: i64, offset: i64) -> i32 {
    let (counter, key) = counter_and_key(seed, offset);
    let w = philox4x32_10(counter, key)[0] as i32;
    if w < 0 {
        !w
    } else {
        w
    }
}

/// `rand(seed, offset)` as Triton computes it in f32.
pub fn triton_rand(seed: i64, offset: i64) -> f32 {
    (folded_word(seed, offset) as f32) * scale()
}

/// The name of the atom standing for `rand(seed, offset)` in the all-sizes proof, the
/// offset printed as a polynomial over the sizes: kernel and formula name it alike.
pub fn atom_name(seed: i64, offset: &str) -> String {
    format!("rand({seed}, {offset})")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's known answers for Philox4x32-10 (`kat_vectors`): the four words.
    #[test]
    fn philox_matches_random123_known_answers() {
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    /// The fold and scale: every value in [0, 1), the largest int32 too after rounding.
    #[test]
    fn rand_is_in_the_unit_interval() {
        for off in 0..64 {
            let r = triton_rand(1234, off);
            assert!((0.0..1.0).contains(&r), "{off}: {r}");
        }
        assert_eq!((4.656_612_734_2e-10_f64 as f32).to_bits(), SCALE_BITS);
        assert!((i32::MAX as f32) * scale() < 1.0);
    }
}
