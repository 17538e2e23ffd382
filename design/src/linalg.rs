//! Dense linear algebra the designers share.

/// Gauss–Jordan inverse with partial pivoting of the m × m matrix `a` (row-major,
/// destroyed) into `inv`; false when a column's largest pivot candidate is not above
/// `min_pivot` in absolute value (NaN included), i.e. the matrix is (numerically) singular.
pub(crate) fn invert(a: &mut [f64], inv: &mut [f64], m: usize, min_pivot: f64) -> bool {
    for (i, v) in inv[..m * m].iter_mut().enumerate() {
        *v = if i / m == i % m { 1.0 } else { 0.0 };
    }
    for col in 0..m {
        let mut piv = col;
        for r in col + 1..m {
            if a[r * m + col].abs() > a[piv * m + col].abs() {
                piv = r;
            }
        }
        let pivot = a[piv * m + col].abs();
        if pivot.is_nan() || pivot <= min_pivot {
            return false;
        }
        if piv != col {
            for j in 0..m {
                a.swap(piv * m + j, col * m + j);
                inv.swap(piv * m + j, col * m + j);
            }
        }
        let dv = a[col * m + col];
        for j in 0..m {
            a[col * m + j] /= dv;
            inv[col * m + j] /= dv;
        }
        for r in 0..m {
            if r != col {
                let f = a[r * m + col];
                if f != 0.0 {
                    for j in 0..m {
                        a[r * m + j] -= f * a[col * m + j];
                        inv[r * m + j] -= f * inv[col * m + j];
                    }
                }
            }
        }
    }
    true
}
