//! The two custom units the libfixmath benchmark expects (§3.10): a Q16.16 divider (VCUSTOM0)
//! and a Q16.16 square root (VCUSTOM1), with libfixmath's documented results computed exactly.
//! (libfixmath's own loops take shortcuts that can be one unit in the last place higher for
//! large divisors or radicands; the benchmark's checker tolerates that.)

/// `fix16_overflow` and `fix16_minimum`, which libfixmath returns for unrepresentable results
/// and for division by zero.
const OVERFLOW: i32 = i32::MIN;

/// `fix16_div(dividend, divisor)`: the quotient rounded to nearest, halves away from zero.
pub(super) fn div(dividend: i32, divisor: i32) -> i32 {
    if divisor == 0 {
        return OVERFLOW;
    }
    // Magnitudes, so that the rounding is symmetric as in libfixmath; one extra fractional bit
    // (<< 17) decides the rounding.
    let twice = (u64::from(dividend.unsigned_abs()) << 17) / u64::from(divisor.unsigned_abs());
    let Ok(magnitude) = i32::try_from((twice + 1) >> 1) else {
        return OVERFLOW;
    };
    if (dividend < 0) != (divisor < 0) {
        -magnitude
    } else {
        magnitude
    }
}

/// `fix16_sqrt(x)`: the square root rounded to nearest; a negative `x` gives −sqrt(|x|), as
/// libfixmath documents.
pub(super) fn sqrt(x: i32) -> i32 {
    // sqrt(m / 2^16) in Q16.16 is sqrt(m × 2^16) in integer terms.
    let radicand = u64::from(x.unsigned_abs()) << 16;
    let floor = radicand.isqrt();
    // sqrt(radicand) ≥ floor + ½ exactly when radicand − floor² > floor (both sides integers).
    let rounded = floor + u64::from(radicand - floor * floor > floor);
    // At most sqrt(2^47) < 2^24: always fits.
    let root = rounded as i32;
    if x < 0 {
        -root
    } else {
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: i32 = 1 << 16;

    #[test]
    fn division() {
        assert_eq!(div(3 * ONE, 2 * ONE), 3 * ONE / 2);
        assert_eq!(div(-3 * ONE, 2 * ONE), -3 * ONE / 2);
        assert_eq!(div(ONE, -3 * ONE), -21845); // 0.33333 rounds down
        assert_eq!(div(2 * ONE, 3 * ONE), 43691); // 0.66667 rounds up
        assert_eq!(div(1, 2 * ONE), 1); // half an ulp rounds away from zero
        assert_eq!(div(-1, 2 * ONE), -1);
        assert_eq!(div(i32::MIN, ONE), i32::MIN); // -32768 / 1 would need 2^31: overflow
    }

    #[test]
    fn division_by_zero_and_overflow_give_the_minimum() {
        assert_eq!(div(ONE, 0), i32::MIN);
        assert_eq!(div(0, 0), i32::MIN);
        assert_eq!(div(i32::MAX, 1), i32::MIN);
        assert_eq!(div(i32::MIN, -1), i32::MIN);
        assert_eq!(div(0x7fff * ONE, ONE), 0x7fff * ONE);
    }

    #[test]
    fn square_root() {
        assert_eq!(sqrt(0), 0);
        assert_eq!(sqrt(4 * ONE), 2 * ONE);
        assert_eq!(sqrt(2 * ONE), 92682); // 1.414214 × 65536 = 92681.9
        assert_eq!(sqrt(ONE / 4), ONE / 2);
        assert_eq!(sqrt(1), 256);
        assert_eq!(sqrt(-4 * ONE), -2 * ONE);
        assert_eq!(sqrt(i32::MAX), 11_863_283);
        assert_eq!(sqrt(i32::MIN), -11_863_283);
    }
}
