//! Runtime CPU dispatch for the hot loops: the same safe Rust body compiled twice, once for
//! the x86-64 baseline (SSE2) and once with AVX2 enabled, and the AVX2 copy called when the CPU
//! has it.
//!
//! Why: the baseline has no 32-bit vector multiply and no byte shuffle, so the grayscale
//! conversion and the integer resampling sums stay scalar there; with AVX2 the compiler
//! vectorises the very same code (about 6x faster for RGB to `L`). Both copies run the same
//! integer (or exactly representable) arithmetic, so their results are bit-identical; a test
//! next to each kernel checks that. The resampling passes dispatch by hand with the same
//! pattern, since without AVX2 they pick a different (equally exact) body.

/// Defines `fn $name(args) -> ret` that runs `$body(args)` (an `#[inline(always)]` function),
/// compiled with AVX2 when the CPU supports it and as is otherwise.
macro_rules! avx2_dispatch {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:path
    ) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn with_avx2($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                if $crate::cpu::has_avx2() {
                    #[allow(unsafe_code)]
                    // SAFETY: `with_avx2` only requires the AVX2 target feature, and the CPU
                    // was found to support it on the line above. The body is safe Rust.
                    return unsafe { with_avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}

pub(crate) use avx2_dispatch;

/// Whether the CPU supports AVX2 (cached by the standard library after the first call).
#[inline]
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
