//! Triton's random stream, an extension beyond PyTorch: `tl.rand(seed, offsets)` means
//! exactly `triton.language.rand` (Triton 3.x `language/random.py`): Philox 4x32 with 10
//! rounds on counter (offset lo, offset hi, 0, 0) and key (seed lo, seed hi), its first
//! word read as an int32, folded to non-negative (`x < 0 ? ~x : x`), converted to f32 and
//! multiplied by the f32 `4.6566127342e-10`, every step rounded as the GPU rounds.
//!
//! Read at an instance only: the seed and every offset must be known integers there, and
//! each element of the result is the exact f32 value Triton computes (a constant term).
//! A seed is read as a 64-bit integer (an `i32` seed sign-extended, as `seed.to(uint64)`
//! does), an offset as an int64 (`torch.arange`'s dtype): its high word is the counter's
//! second word, which is 0 for the non-negative int32 offsets kernels use.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::args::Args;
use num_traits::ToPrimitive;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["tl.rand"];

const M32: u64 = 0xFFFF_FFFF;

/// The counter's first word after Philox4x32-10 (Random123's constants).
pub(crate) fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter.map(u64::from);
    let [mut k0, mut k1] = key.map(u64::from);
    for _ in 0..10 {
        let (p0, p1) = (0xD251_1F53 * c0, 0xCD9E_8D57 * c2);
        (c0, c1, c2, c3) = (
            ((p1 >> 32) ^ c1 ^ k0) & M32,
            p1 & M32,
            ((p0 >> 32) ^ c3 ^ k1) & M32,
            p0 & M32,
        );
        k0 = (k0 + 0x9E37_79B9) & M32;
        k1 = (k1 + 0xBB67_AE85) & M32;
    }
    [c0 as u32, c1 as u32, c2 as u32, c3 as u32]
}

/// `tl.rand(seed, offset)` for one offset, as Triton computes it in f32.
pub(crate) fn triton_rand(seed: i64, offset: i64) -> f32 {
    let (s, o) = (seed as u64, offset as u64);
    let counter = [o as u32, (o >> 32) as u32, 0, 0];
    let word = philox4x32_10(counter, [s as u32, (s >> 32) as u32])[0] as i32;
    let folded = if word < 0 { !word } else { word };
    // Triton's Python float scale, rounded to f32 as its IR constant is (0x2fffffff)
    let scale = 4.656_612_734_2e-10_f64 as f32;
    (folded as f32) * scale
}

/// The arm of `tl.rand`.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let seed = a.req_int("seed")?;
    let offsets = a.tensor(cx, "offset")?;
    let mut elems = Vec::with_capacity(offsets.elems.len());
    for &o in &offsets.elems {
        let offset = cx
            .terms
            .as_const(o)
            .filter(|c| c.is_integer())
            .and_then(|c| c.to_integer().to_i64())
            .ok_or_else(|| {
                "tl.rand: every offset must be an integer known at the instance \
                 (e.g. `torch.arange(n)`)"
                    .to_string()
            })?;
        elems.push(cx.terms.float(f64::from(triton_rand(seed, offset))));
    }
    Ok(Value::Tensor(Tensor::new(offsets.shape.clone(), elems)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's known answers for Philox4x32-10 (`kat_vectors`): the four output words.
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

    /// The fold and scale: a word with the sign bit set maps to `~word`, and the largest
    /// int32 stays below 1 after f32 rounding.
    #[test]
    fn rand_is_in_the_unit_interval() {
        for off in 0..64 {
            let r = triton_rand(1234, off);
            assert!((0.0..1.0).contains(&r), "{off}: {r}");
        }
        assert_eq!((4.656_612_734_2e-10_f64 as f32).to_bits(), 0x2fff_ffff);
        assert!((i32::MAX as f32) * (4.656_612_734_2e-10_f64 as f32) < 1.0);
    }
}
