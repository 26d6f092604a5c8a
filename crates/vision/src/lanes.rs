//! The value types the DCT runs on: a plain `f64`, or [`Lanes`], eight independent `f64`s
//! that go through the same operations side by side (one vector instruction each).
//!
//! The DCT code is written once, generic over [`Sample`], so a lane of a [`Lanes`] run is
//! bit-identical to a scalar run by construction: every operation is an IEEE add, subtract or
//! multiply per lane, and Rust never fuses them into FMAs.

use std::ops::Add;
use std::ops::Mul;
use std::ops::Sub;

/// What the transforms need of a value: add, subtract, scale by a constant, and zero.
pub(crate) trait Sample:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<f64, Output = Self>
{
    /// `+0.0` in every lane.
    const ZERO: Self;
}

impl Sample for f64 {
    const ZERO: f64 = 0.0;
}

/// How many inputs a [`Lanes`] run transforms at once.
pub const LANES: usize = 8;

/// One `f64` per lane; arithmetic is per lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lanes(pub [f64; LANES]);

impl Sample for Lanes {
    const ZERO: Lanes = Lanes([0.0; LANES]);
}

impl Add for Lanes {
    type Output = Lanes;

    #[inline(always)]
    fn add(self, other: Lanes) -> Lanes {
        Lanes(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }
}

impl Sub for Lanes {
    type Output = Lanes;

    #[inline(always)]
    fn sub(self, other: Lanes) -> Lanes {
        Lanes(std::array::from_fn(|i| self.0[i] - other.0[i]))
    }
}

impl Mul<f64> for Lanes {
    type Output = Lanes;

    #[inline(always)]
    fn mul(self, factor: f64) -> Lanes {
        Lanes(std::array::from_fn(|i| self.0[i] * factor))
    }
}
