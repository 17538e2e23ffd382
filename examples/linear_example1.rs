//! Ding, Liu, Farokhi, Example 1 at α = 0.5: prints what privlift computes.
use privlift::design::{linear, utility::channel_utility, Source};
use privlift::spec::{Alphabet, Matrix};

fn main() {
    let cond = [[0.2, 0.1, 0.5, 0.2], [0.5, 0.3, 0.1, 0.1]];
    let ps = [0.3, 0.7];
    let p_sx = Matrix::from_flat(2, 4, (0..8).map(|i| ps[i / 4] * cond[i / 4][i % 4]).collect());
    let src = Source::joint(
        Alphabet::indices("s", 2).unwrap(),
        Alphabet::new("x", ["a", "b", "c", "d"].map(String::from).to_vec()).unwrap(),
        p_sx.clone(),
    )
    .unwrap();
    println!("P_X = {:?}", src.p_x());
    let blocks = linear::tv_blocks(&p_sx, 0.5).unwrap();
    println!("s=1 block: {:?}", blocks[0].to_rows());
    println!("s=2 block: {:?}", blocks[1].to_rows());
    let ind = privlift::leakage::induced_channel(&p_sx, &blocks);
    let u = channel_utility(&src.p_x(), &ind, None);
    println!("non-Markov: {u:?}");
    let m = linear::markov_matrix(&src.p_x(), 0.5);
    println!("Markov: {:?}", channel_utility(&src.p_x(), &m, None));
    let h: f64 = -src.p_x().iter().map(|p| p * p.ln()).sum::<f64>();
    println!("H(X) nats {h} bits {}", h / 2f64.ln());
}
