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

/// Eigen-decomposition of the symmetric n × n matrix `a` (row-major) by cyclic Jacobi
/// rotations: the eigenvalues, and the eigenvectors as the columns of the returned n × n
/// row-major matrix. Sweeps until the off-diagonal part is below 1e-13 of the Frobenius
/// norm (Jacobi converges quadratically: a handful of sweeps; at most 50, O(n³) each); a
/// rotation whose entry is already negligible against its diagonal pair is skipped.
pub(crate) fn symmetric_eigen(a: &[f64], n: usize) -> (alloc::vec::Vec<f64>, alloc::vec::Vec<f64>) {
    let mut a = a.to_vec();
    let mut v = alloc::vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    let norm = libm::sqrt(a.iter().map(|x| x * x).sum::<f64>());
    for _ in 0..50 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j] * a[i * n + j])
            .sum();
        if libm::sqrt(off) <= 1e-13 * norm.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 || apq.abs() <= 1e-17 * (a[p * n + p].abs() + a[q * n + q].abs()) {
                    continue;
                }
                // The rotation that zeroes a[p][q] (Golub & Van Loan, Algorithm 8.5.1).
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + libm::sqrt(theta * theta + 1.0));
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / libm::sqrt(t * t + 1.0);
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..n).map(|i| a[i * n + i]).collect(), v)
}

#[cfg(test)]
mod eigen_tests {
    use super::symmetric_eigen;

    #[test]
    fn reconstructs_a_symmetric_matrix() {
        let n = 4;
        let a = [4.0, 1.0, 0.5, 0.0, 1.0, 3.0, 0.2, 0.1, 0.5, 0.2, 2.0, 0.3, 0.0, 0.1, 0.3, 1.0];
        let (vals, vecs) = symmetric_eigen(&a, n);
        for i in 0..n {
            for j in 0..n {
                let r: f64 = (0..n).map(|k| vecs[i * n + k] * vals[k] * vecs[j * n + k]).sum();
                assert!((r - a[i * n + j]).abs() < 1e-12, "{i},{j}: {r} vs {}", a[i * n + j]);
            }
        }
        // Orthonormal columns.
        for p in 0..n {
            for q in 0..n {
                let d: f64 = (0..n).map(|k| vecs[k * n + p] * vecs[k * n + q]).sum();
                assert!((d - if p == q { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
    }
}
