use super::*;

fn loss(net: &Network, x: &[f64], w: &[f64]) -> f64 {
    net.forward(x).iter().zip(w).map(|(a, b)| a * b).sum()
}

#[test]
fn backward_matches_finite_differences() {
    for (hidden, out) in [
        (Activation::Tanh, Activation::Identity),
        (Activation::Sigmoid, Activation::Sigmoid),
        (Activation::Relu, Activation::Tanh),
    ] {
        let net = Network::new(&[4, 6, 5, 3], hidden, out, 7);
        let x = [0.3, -0.7, 0.11, 0.9];
        let dout = [0.5, -1.2, 0.8];
        let mut cache = net.cache();
        let mut g = net.gradients();
        net.forward_cached(&x, &mut cache);
        let mut dx = [0.0; 4];
        net.backward(&x, &mut cache, &dout, &mut g, Some(&mut dx));
        let h = 1e-6;
        for li in 0..net.layers.len() {
            for k in 0..net.layers[li].weights.len() {
                let mut p = net.clone();
                p.layers[li].weights[k] += h;
                let mut m = net.clone();
                m.layers[li].weights[k] -= h;
                let fd = (loss(&p, &x, &dout) - loss(&m, &x, &dout)) / (2.0 * h);
                assert!(
                    (fd - g.weights[li][k]).abs() < 1e-5,
                    "layer {li} w{k}: {fd} vs {}",
                    g.weights[li][k]
                );
            }
            for k in 0..net.layers[li].bias.len() {
                let mut p = net.clone();
                p.layers[li].bias[k] += h;
                let mut m = net.clone();
                m.layers[li].bias[k] -= h;
                let fd = (loss(&p, &x, &dout) - loss(&m, &x, &dout)) / (2.0 * h);
                assert!((fd - g.bias[li][k]).abs() < 1e-5);
            }
        }
        for k in 0..4 {
            let mut xp = x;
            xp[k] += h;
            let mut xm = x;
            xm[k] -= h;
            let fd = (loss(&net, &xp, &dout) - loss(&net, &xm, &dout)) / (2.0 * h);
            assert!((fd - dx[k]).abs() < 1e-5, "input {k}: {fd} vs {}", dx[k]);
        }
    }
}

#[test]
fn forward_in_equals_cached_forward() {
    let net = Network::new(&[3, 8, 2], Activation::Relu, Activation::Identity, 1);
    let x = [0.2, 0.4, -0.1];
    let mut c = net.cache();
    let a = net.forward_cached(&x, &mut c).to_vec();
    assert_eq!(a, net.forward(&x));
}

#[test]
fn adam_fits_a_linear_target_and_seed_is_reproducible() {
    let run = || {
        let mut net = Network::new(&[2, 1], Activation::Identity, Activation::Identity, 3);
        let mut adam = Adam::new(&net, 0.05);
        let mut cache = net.cache();
        let mut g = net.gradients();
        for it in 0..2000 {
            let x = [((it * 7) % 11) as f64 / 11.0, ((it * 3) % 5) as f64 / 5.0];
            let target = 2.0 * x[0] - 3.0 * x[1] + 0.5;
            g.zero();
            let y = net.forward_cached(&x, &mut cache)[0];
            net.backward(&x, &mut cache, &[y - target], &mut g, None);
            adam.step(&mut net, &g);
        }
        net
    };
    let a = run();
    assert!((a.layers[0].weights[0] - 2.0).abs() < 0.05);
    assert!((a.layers[0].weights[1] + 3.0).abs() < 0.05);
    assert_eq!(a, run());
}

#[test]
fn clipping_bounds_the_norm() {
    let net = Network::new(&[2, 3, 1], Activation::Relu, Activation::Identity, 0);
    let mut g = net.gradients();
    g.weights[0].fill(10.0);
    g.clip_norm(1.0);
    assert!((g.norm() - 1.0).abs() < 1e-12);
}

#[test]
fn absurd_network_sizes_are_refused_before_allocation() {
    assert_eq!(check_sizes(&[3, 4, 1]).unwrap(), 3 * 4 + 4 + 4 + 1);
    assert!(check_sizes(&[3]).is_err());
    assert!(check_sizes(&[3, 0, 1]).is_err());
    // overflowing products and sums
    assert!(check_sizes(&[usize::MAX, 2, 1]).is_err());
    assert!(check_sizes(&[2, usize::MAX]).is_err());
    // the limit itself: a one-layer network of exactly MAX_PARAMETERS parameters
    let n_out = 1 << 10;
    let n_in = MAX_PARAMETERS / n_out - 1; // n_in·n_out + n_out = MAX_PARAMETERS
    assert_eq!(check_sizes(&[n_in, n_out]).unwrap(), MAX_PARAMETERS);
    assert!(check_sizes(&[n_in + 1, n_out]).is_err());
    // through the trainers: an error, not an aborted process
    let x = vec![vec![0.0, 1.0], vec![1.0, 0.0]];
    let opts = crate::model::MlpTraining {
        hidden: vec![1 << 40],
        ..Default::default()
    };
    let r = crate::model::MlpModel::train(&x, &[0.0, 1.0], &opts);
    assert!(matches!(r, Err(crate::Error::InvalidArgument(m)) if m.contains("parameters")));
}
