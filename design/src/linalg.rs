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

/// Σ a_i b_i over the common length, with eight independent partial sums (four pairs, the
/// shape of the vector registers): a floating-point sum may not be reassociated by the
/// compiler, so a single accumulator would wait on each addition and never vectorise.
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [[0.0f64; 2]; 4];
    let (ac, bc) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = ac.remainder().iter().zip(bc.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ac.zip(bc) {
        for (j, acc) in acc.iter_mut().enumerate() {
            for (l, acc) in acc.iter_mut().enumerate() {
                *acc += x[2 * j + l] * y[2 * j + l];
            }
        }
    }
    let lane = |l: usize| (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]);
    lane(0) + lane(1) + tail
}

/// y += s·x over the common length.
#[inline]
pub(crate) fn axpy(y: &mut [f64], s: f64, x: &[f64]) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y += s * x;
    }
}

/// y += Mᵀc for the row-major `m` (c.len() rows of y.len() entries): the rows scaled by c,
/// added four at a time so that y is read and written once per four rows (a row-by-row
/// `axpy` is bound by those stores); a block of four zero coefficients is skipped.
pub(crate) fn add_scaled_rows(y: &mut [f64], c: &[f64], m: &[f64]) {
    let n = y.len();
    let mut blocks = m[..c.len() * n].chunks_exact(4 * n);
    let mut coeffs = c.chunks_exact(4);
    for (block, s) in blocks.by_ref().zip(coeffs.by_ref()) {
        if s.iter().all(|&s| s == 0.0) {
            continue;
        }
        let (r0, rest) = block.split_at(n);
        let (r1, rest) = rest.split_at(n);
        let (r2, r3) = rest.split_at(n);
        for ((((y, &x0), &x1), &x2), &x3) in y.iter_mut().zip(r0).zip(r1).zip(r2).zip(r3) {
            *y += (s[0] * x0 + s[1] * x1) + (s[2] * x2 + s[3] * x3);
        }
    }
    for (row, &s) in blocks.remainder().chunks_exact(n).zip(coeffs.remainder()) {
        if s != 0.0 {
            axpy(y, s, row);
        }
    }
}

/// The Gram matrix BᵀB (n × n, row-major, exactly symmetric) of the m × n row-major `b`:
/// Σ over the rows r of r rᵀ. The upper triangle is accumulated four rows of `b` at a time
/// (contiguous row updates of the result, which is read once per four rows), then mirrored.
pub(crate) fn gram(b: &[f64], m: usize, n: usize) -> alloc::vec::Vec<f64> {
    let mut g = alloc::vec![0.0; n * n];
    let rows = &b[..m * n];
    let mut blocks = rows.chunks_exact(4 * n);
    for block in blocks.by_ref() {
        let (r0, rest) = block.split_at(n);
        let (r1, rest) = rest.split_at(n);
        let (r2, r3) = rest.split_at(n);
        for a in 0..n {
            let (s0, s1, s2, s3) = (r0[a], r1[a], r2[a], r3[a]);
            if s0 == 0.0 && s1 == 0.0 && s2 == 0.0 && s3 == 0.0 {
                continue;
            }
            let out = &mut g[a * n + a..(a + 1) * n];
            for ((((o, &x0), &x1), &x2), &x3) in out.iter_mut().zip(&r0[a..]).zip(&r1[a..]).zip(&r2[a..]).zip(&r3[a..])
            {
                *o += s0 * x0 + s1 * x1 + s2 * x2 + s3 * x3;
            }
        }
    }
    for r in blocks.remainder().chunks_exact(n) {
        for a in 0..n {
            if r[a] != 0.0 {
                axpy(&mut g[a * n + a..(a + 1) * n], r[a], &r[a..]);
            }
        }
    }
    for a in 0..n {
        for c in a + 1..n {
            g[c * n + a] = g[a * n + c];
        }
    }
    g
}

/// Most implicit QL steps spent on one eigenvalue; two or three is usual (the Wilkinson
/// shift converges cubically), so this only bounds a pathological input.
const MAX_QL_STEPS: usize = 64;

/// Eigen-decomposition of the symmetric n × n matrix `a` (row-major; only exact symmetry
/// is assumed): the eigenvalues in ascending order, and unit eigenvectors as the
/// columns of the returned n × n row-major matrix (orthonormal, so a = V diag(λ) Vᵀ).
///
/// The classic two-phase method (Golub & Van Loan, *Matrix Computations*, 4th ed., §8.3;
/// the method of EISPACK's `tred2` + `tql2`, Bowdler, Martin, Reinsch & Wilkinson, Numer.
/// Math. 1968 / Handbook for Automatic Computation II): Householder reflections reduce `a`
/// to a tridiagonal T = Qᵀ a Q (§8.3.1, 2n³ flops here, using the full symmetric trailing
/// block so that every update is a contiguous row operation), Q is accumulated backwards
/// (4n³/3), and implicit QL steps with Wilkinson's shift diagonalise T (§8.3.5, the QL
/// mirror of Algorithm 8.3.3), each Givens rotation applied to two contiguous rows of
/// Qᵀ. QL deflates from the top and converges fastest on a T graded with its large entries
/// at the bottom, which the reduction preserves from the end of `a` it starts at (the
/// advice of Press et al., *Numerical Recipes* §11.2–11.3, for `tred2` + `tql2`): the
/// reduction starts from the larger end of `a`'s diagonal and T is reversed before QL
/// (on the MLE's information at k = 256: 350 QL steps instead of 970). Backward stable:
/// the reconstruction error is O(n·u·‖a‖) whatever the spectrum, repeated or zero
/// eigenvalues included. About 7n³ flops in all, against the ~10 sweeps × 4n³ of cyclic
/// Jacobi this replaced.
pub(crate) fn symmetric_eigen(a: &[f64], n: usize) -> (alloc::vec::Vec<f64>, alloc::vec::Vec<f64>) {
    // Index order: the larger diagonal end of `a` first (see the doc comment).
    let reverse = n >= 2 && a[n * n - 1].abs() > a[0].abs();
    let at = |i: usize| if reverse { n - 1 - i } else { i };
    let mut g = alloc::vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            g[i * n + j] = a[at(i) * n + at(j)];
        }
    }
    let (mut d, mut e, beta) = tridiagonalise(&mut g, n);
    let q = householder_product(&g, &beta, n);
    // T reversed (J T J, J the reversal), so that the reduction's starting end is at the
    // bottom; its eigenvector basis starts as (Q J)ᵀ, whose rows are Q's columns, last
    // first: each QL rotation then rotates two of its rows.
    if n >= 2 {
        d.reverse();
        e[..n - 1].reverse();
    }
    let mut z = alloc::vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            z[i * n + j] = q[j * n + n - 1 - i];
        }
    }
    tridiagonal_ql(&mut d, &mut e, &mut z, n);
    let mut order: alloc::vec::Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| d[i].total_cmp(&d[j]));
    let mut vecs = alloc::vec![0.0; n * n];
    for (col, &i) in order.iter().enumerate() {
        for (r, &zv) in z[i * n..(i + 1) * n].iter().enumerate() {
            vecs[at(r) * n + col] = zv;
        }
    }
    (order.iter().map(|&i| d[i]).collect(), vecs)
}

/// Householder tridiagonalisation (Golub & Van Loan, Algorithm 8.3.1) of the symmetric
/// `a` in place: returns the diagonal d, the sub-diagonal e (e[i] couples i and i + 1;
/// e[n − 1] = 0) and the reflections' β. Step k maps row k's tail x = a[k][k+1..] to
/// −sign(x₀)‖x‖e₁ by P_k = I − β v vᵀ with v = x + sign(x₀)‖x‖e₁, stored over that tail,
/// and applies P_k to the trailing block from both sides as the rank-2 update
/// A ← A − v wᵀ − w vᵀ, w = p − (β pᵀv/2) v, p = β A v.
fn tridiagonalise(a: &mut [f64], n: usize) -> (alloc::vec::Vec<f64>, alloc::vec::Vec<f64>, alloc::vec::Vec<f64>) {
    let mut d = alloc::vec![0.0; n];
    let mut e = alloc::vec![0.0; n];
    let mut beta = alloc::vec![0.0; n];
    let mut w = alloc::vec![0.0; n];
    for k in 0..n.saturating_sub(2) {
        d[k] = a[k * n + k];
        let (head, tail) = a.split_at_mut((k + 1) * n);
        let x = &mut head[k * n + k + 1..];
        // ‖x‖ scaled by its largest entry (no overflow or underflow of the squares).
        let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if scale == 0.0 {
            continue; // already tridiagonal in this row: e[k] = 0, no reflection
        }
        let alpha = scale * libm::sqrt(x.iter().map(|v| (v / scale) * (v / scale)).sum::<f64>());
        let sigma = if x[0] >= 0.0 { alpha } else { -alpha };
        x[0] += sigma;
        let b = 1.0 / (sigma * x[0]); // 2/vᵀv, vᵀv = 2‖x‖(‖x‖ + |x₀|)
        e[k] = -sigma;
        beta[k] = b;
        let v: &[f64] = x;
        let m = n - k - 1;
        let w = &mut w[..m];
        for (i, wi) in w.iter_mut().enumerate() {
            *wi = b * dot(&tail[i * n + k + 1..(i + 1) * n], v);
        }
        let half = 0.5 * b * dot(w, v);
        axpy(w, -half, v);
        for (i, (&vi, &wi)) in v.iter().zip(w.iter()).enumerate() {
            for ((t, &wj), &vj) in tail[i * n + k + 1..(i + 1) * n].iter_mut().zip(w.iter()).zip(v) {
                *t -= vi * wj + wi * vj;
            }
        }
    }
    if n >= 2 {
        d[n - 2] = a[(n - 2) * n + n - 2];
        e[n - 2] = a[(n - 2) * n + n - 1];
    }
    if n >= 1 {
        d[n - 1] = a[n * n - 1];
    }
    (d, e, beta)
}

/// Q = P₀ P₁ ⋯ P_{n−3} (row-major) from the reflections `tridiagonalise` left in `a`,
/// accumulated backwards (Golub & Van Loan §5.1.6): P_k touches only rows and columns
/// k + 1.. of the partial product, where it is u = vᵀQ, Q ← Q − β v u.
fn householder_product(a: &[f64], beta: &[f64], n: usize) -> alloc::vec::Vec<f64> {
    let mut q = alloc::vec![0.0; n * n];
    for i in 0..n {
        q[i * n + i] = 1.0;
    }
    let mut u = alloc::vec![0.0; n];
    for k in (0..n.saturating_sub(2)).rev() {
        if beta[k] == 0.0 {
            continue;
        }
        let v = &a[k * n + k + 1..(k + 1) * n];
        let u = &mut u[..n - k - 1];
        u.iter_mut().for_each(|x| *x = 0.0);
        for (i, &vi) in v.iter().enumerate() {
            axpy(u, vi, &q[(k + 1 + i) * n + k + 1..(k + 2 + i) * n]);
        }
        for (i, &vi) in v.iter().enumerate() {
            axpy(&mut q[(k + 1 + i) * n + k + 1..(k + 2 + i) * n], -beta[k] * vi, u);
        }
    }
    q
}

/// Diagonalises the symmetric tridiagonal (d, e) by implicit QL steps with Wilkinson's
/// shift (Golub & Van Loan §8.3.5; Bowdler et al.'s `tql2`), deflating when an
/// off-diagonal e[m] falls below the rounding of |d[m]| + |d[m+1]|. Each step chases the
/// bulge up from the bottom of the unreduced block l..=m by Givens rotations, applied to
/// rows i, i + 1 of `z` as well; on return d holds the eigenvalues and row i of `z` the
/// eigenvector of d[i].
fn tridiagonal_ql(d: &mut [f64], e: &mut [f64], z: &mut [f64], n: usize) {
    for l in 0..n {
        let mut steps = 0;
        loop {
            let mut m = l;
            while m + 1 < n && e[m].abs() > f64::EPSILON * (d[m].abs() + d[m + 1].abs()) {
                m += 1;
            }
            if m == l || steps == MAX_QL_STEPS {
                break;
            }
            steps += 1;
            // The shift: the eigenvalue of the leading 2 × 2 block nearer d[l].
            let t = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let r = libm::hypot(t, 1.0);
            let mut g = d[m] - d[l] + e[l] / (t + if t >= 0.0 { r } else { -r });
            let (mut s, mut c, mut p) = (1.0, 1.0, 0.0);
            let mut deflated = false;
            for i in (l..m).rev() {
                let f = s * e[i];
                let b = c * e[i];
                let r = libm::hypot(f, g);
                e[i + 1] = r;
                if r == 0.0 {
                    // The bulge vanished (underflow): the block splits at i + 1.
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    deflated = true;
                    break;
                }
                s = f / r;
                c = g / r;
                let h = d[i + 1] - p;
                let r = (d[i] - h) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = h + p;
                g = c * r - b;
                let (lo, hi) = z.split_at_mut((i + 1) * n);
                let (zi, zj) = (&mut lo[i * n..], &mut hi[..n]);
                for (a, b) in zi.iter_mut().zip(zj.iter_mut()) {
                    let (x, y) = (*a, *b);
                    *a = c * x - s * y;
                    *b = s * x + c * y;
                }
            }
            if !deflated {
                d[l] -= p;
                e[l] = g;
                e[m] = 0.0;
            }
        }
    }
}

#[cfg(test)]
mod eigen_tests {
    use super::{dot, gram, symmetric_eigen};
    use alloc::format;
    use alloc::vec;
    use alloc::vec::Vec;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

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

    /// A random orthogonal n × n matrix (row-major): a product of n random reflections.
    fn random_orthogonal(rng: &mut ChaCha8Rng, n: usize) -> Vec<f64> {
        let mut q = vec![0.0; n * n];
        for i in 0..n {
            q[i * n + i] = 1.0;
        }
        for _ in 0..n {
            let u: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
            let uu: f64 = u.iter().map(|x| x * x).sum();
            for row in q.chunks_exact_mut(n) {
                let f = 2.0 * row.iter().zip(&u).map(|(a, b)| a * b).sum::<f64>() / uu;
                row.iter_mut().zip(&u).for_each(|(a, b)| *a -= f * b);
            }
        }
        q
    }

    /// Checks a = V diag(λ) Vᵀ to 1e-10 of max |a|, VᵀV = I to 1e-10, ascending λ, and,
    /// when given, the spectrum.
    fn check(a: &[f64], n: usize, spectrum: Option<&[f64]>, what: &str) {
        let (vals, vecs) = symmetric_eigen(a, n);
        assert_eq!((vals.len(), vecs.len()), (n, n * n), "{what}");
        let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(f64::MIN_POSITIVE);
        let mut worst = 0.0f64;
        for i in 0..n {
            for j in 0..n {
                let r: f64 = (0..n).map(|k| vecs[i * n + k] * vals[k] * vecs[j * n + k]).sum();
                worst = worst.max((r - a[i * n + j]).abs() / scale);
                let d: f64 = (0..n).map(|k| vecs[k * n + i] * vecs[k * n + j]).sum();
                assert!((d - if i == j { 1.0 } else { 0.0 }).abs() < 1e-10, "{what}: VᵀV[{i}][{j}] = {d}");
            }
        }
        assert!(worst < 1e-10, "{what}: reconstruction error {worst:e} of max |a|");
        assert!(vals.windows(2).all(|p| p[0] <= p[1]), "{what}: not ascending");
        if let Some(spectrum) = spectrum {
            let mut want = spectrum.to_vec();
            want.sort_by(f64::total_cmp);
            for (got, want) in vals.iter().zip(&want) {
                assert!((got - want).abs() < 1e-10 * scale, "{what}: eigenvalue {got} vs {want}");
            }
        }
    }

    #[test]
    fn reconstructs_random_degenerate_and_rank_deficient_matrices() {
        let mut rng = ChaCha8Rng::seed_from_u64(256);
        for n in [1usize, 2, 5, 64, 200] {
            // Dense random symmetric.
            let mut a = vec![0.0; n * n];
            for i in 0..n {
                for j in i..n {
                    let v = rng.random::<f64>() * 2.0 - 1.0;
                    a[i * n + j] = v;
                    a[j * n + i] = v;
                }
            }
            check(&a, n, None, &format!("random n = {n}"));
            // Prescribed spectra through a random rotation: repeated eigenvalues, a
            // rank-deficient one (half the spectrum 0), one eigenvalue n times, widely spread.
            let q = random_orthogonal(&mut rng, n);
            let spectra: [(&str, Vec<f64>); 4] = [
                ("repeated", (0..n).map(|i| [3.0, -1.0, 3.0, 0.5][i % 4]).collect()),
                ("rank-deficient", (0..n).map(|i| if i % 2 == 0 { 0.0 } else { 1.0 + i as f64 }).collect()),
                ("scalar", vec![2.5; n]),
                ("spread", (0..n).map(|i| 10f64.powi(i as i32 % 13 - 6)).collect()),
            ];
            for (what, lambda) in spectra {
                let mut a = vec![0.0; n * n];
                for i in 0..n {
                    for j in 0..n {
                        a[i * n + j] = (0..n).map(|k| q[i * n + k] * lambda[k] * q[j * n + k]).sum();
                    }
                }
                // Exactly symmetric, as the solver's callers build theirs.
                for i in 0..n {
                    for j in 0..i {
                        a[i * n + j] = a[j * n + i];
                    }
                }
                check(&a, n, Some(&lambda), &format!("{what} n = {n}"));
            }
            // Zero, diagonal and already tridiagonal matrices (reflections skipped).
            check(&vec![0.0; n * n], n, Some(&vec![0.0; n]), &format!("zero n = {n}"));
            let diag: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
            let mut a = vec![0.0; n * n];
            for i in 0..n {
                a[i * n + i] = diag[i];
            }
            check(&a, n, Some(&diag), &format!("diagonal n = {n}"));
            for i in 0..n.saturating_sub(1) {
                a[i * n + i + 1] = 0.5;
                a[(i + 1) * n + i] = 0.5;
            }
            check(&a, n, None, &format!("tridiagonal n = {n}"));
        }
        assert_eq!(symmetric_eigen(&[], 0), (vec![], vec![]));
    }

    #[test]
    fn gram_and_dot_match_the_naive_sums() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for (m, n) in [(1usize, 1usize), (3, 5), (4, 4), (9, 17), (256, 33)] {
            let b: Vec<f64> = (0..m * n).map(|_| rng.random::<f64>() - 0.5).collect();
            let g = gram(&b, m, n);
            for i in 0..n {
                for j in 0..n {
                    let want: f64 = (0..m).map(|r| b[r * n + i] * b[r * n + j]).sum();
                    assert!((g[i * n + j] - want).abs() < 1e-12, "({m}, {n}) [{i}][{j}]");
                    assert_eq!(g[i * n + j], g[j * n + i]);
                }
            }
            let (x, y) = (&b[..n], &b[b.len() - n..]);
            let want: f64 = x.iter().zip(y).map(|(a, b)| a * b).sum();
            assert!((dot(x, y) - want).abs() < 1e-12);
        }
    }
}
