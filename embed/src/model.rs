//! The forward pass of Universal Sentence Encoder multilingual v3 as the
//! reference `backends/numpy.py` computes it: a quantized token embedding,
//! three CNN n-gram branches (orders 2, 3, 5), layernorm, a length-scaled token
//! sum through a linear projection, then a 3-layer DAN head with skip
//! projections, tanh and L2 normalization. f32 throughout, row-major.

use std::collections::HashMap;

use crate::npz::{Array, Data};

/// Rows of each of the 17 quantized embedding chunks; id `t` is row `t / 17` of chunk `t % 17`.
const CHUNK_ROWS: usize = 7530;
const CHUNKS: usize = 17;
/// Token embedding width and output width.
const EMB: usize = 512;
/// Width of each CNN branch.
const CNN: usize = 256;
/// (n-gram order, left context) of the three branches.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
/// Width of the token features: the embedding then the three branches.
const FEAT: usize = EMB + 3 * CNN;
/// Width of the DAN head's hidden layers.
const HID: usize = 320;

/// A missing array or one of the wrong shape or dtype.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct WeightsError(String);

/// A row-major f32 matrix `rows × cols` (a vector is `1 × len`).
struct Mat {
    rows: usize,
    cols: usize,
    data: Vec<f32>,
}

/// One CNN branch: conv1 `(n·256 → 256)`, conv2 `(n·256 → 256)`.
struct Branch {
    n: usize,
    left: usize,
    w1: Mat,
    b1: Vec<f32>,
    w2: Mat,
    b2: Vec<f32>,
}

/// All weights, dequantized where that is cheap; the token table stays u8.
pub(crate) struct Model {
    /// The 17 chunks, each `7530 × 512` u8.
    table: Vec<Vec<u8>>,
    /// Per-chunk dequantization: `value = u8 · scale + lo`.
    scale: Vec<f32>,
    lo: Vec<f32>,
    /// `512 × 768`: the three branches' input projections side by side.
    proj: Mat,
    proj_b: Vec<f32>,
    /// Layernorm over the 768 projected columns together.
    ln_proj: (Vec<f32>, Vec<f32>),
    branches: Vec<Branch>,
    /// Layernorm over the 1280 token features.
    ln: (Vec<f32>, Vec<f32>),
    /// `1280 × 512`.
    cnn_w: Mat,
    cnn_b: Vec<f32>,
    d0: Mat,
    d1: Mat,
    d2: Mat,
    d3: Mat,
    p1: Mat,
    p3: Mat,
    eps: f32,
}

struct Arrays(HashMap<String, Array>);

impl Arrays {
    fn take(&mut self, name: &str) -> Result<Array, WeightsError> {
        self.0
            .remove(name)
            .ok_or_else(|| WeightsError(format!("weights.npz lacks {name}")))
    }

    fn f32(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightsError> {
        match self.take(name)? {
            Array {
                shape: s,
                data: Data::F32(v),
            } if s == shape => Ok(v),
            a => Err(WeightsError(format!(
                "{name}: expected f32 {shape:?}, found shape {:?}",
                a.shape
            ))),
        }
    }

    fn mat(&mut self, name: &str, rows: usize, cols: usize) -> Result<Mat, WeightsError> {
        Ok(Mat {
            rows,
            cols,
            data: self.f32(name, &[rows, cols])?,
        })
    }

    fn cat(&mut self, prefix: &str, shape: &[usize]) -> Result<Vec<f32>, WeightsError> {
        let mut out = Vec::new();
        for n in ["2", "3", "5"] {
            out.extend(self.f32(&format!("{prefix}{n}"), shape)?);
        }
        Ok(out)
    }
}

impl Model {
    /// From the arrays of `weights.npz` (names and shapes as the reference loads them).
    pub(crate) fn new(arrays: HashMap<String, Array>) -> Result<Self, WeightsError> {
        let mut a = Arrays(arrays);
        let mut table = Vec::with_capacity(CHUNKS);
        for i in 1..=CHUNKS {
            match a.take(&format!("q{i}"))? {
                Array {
                    shape,
                    data: Data::U8(v),
                } if shape == [CHUNK_ROWS, EMB] => table.push(v),
                x => {
                    return Err(WeightsError(format!(
                        "q{i}: expected u8 [7530, 512], found {:?}",
                        x.shape
                    )));
                }
            }
        }
        // proj{2,3,5} side by side: row r of the joint matrix is row r of each, concatenated.
        let parts = [
            a.mat("proj2", EMB, CNN)?,
            a.mat("proj3", EMB, CNN)?,
            a.mat("proj5", EMB, CNN)?,
        ];
        let mut proj = Vec::with_capacity(EMB * 3 * CNN);
        for r in 0..EMB {
            for p in &parts {
                proj.extend_from_slice(&p.data[r * CNN..(r + 1) * CNN]);
            }
        }
        let mut branches = Vec::new();
        for (n, left) in ORDERS {
            branches.push(Branch {
                n,
                left,
                w1: a.mat(&format!("w1_{n}"), n * CNN, CNN)?,
                b1: a.f32(&format!("b1_{n}"), &[CNN])?,
                w2: a.mat(&format!("w2_{n}"), n * CNN, CNN)?,
                b2: a.f32(&format!("b2_{n}"), &[CNN])?,
            });
        }
        let eps = match a.take("eps")?.data {
            Data::F64(v) if v.len() == 1 => v[0] as f32,
            Data::F32(v) if v.len() == 1 => v[0],
            _ => return Err(WeightsError("eps: expected one float".into())),
        };
        Ok(Self {
            table,
            scale: a.f32("scale", &[CHUNKS])?,
            lo: a.f32("lo", &[CHUNKS])?,
            proj: Mat {
                rows: EMB,
                cols: 3 * CNN,
                data: proj,
            },
            proj_b: a.cat("proj_b", &[CNN])?,
            ln_proj: (a.cat("ln_g", &[CNN])?, a.cat("ln_b", &[CNN])?),
            branches,
            ln: (a.f32("ln_g", &[FEAT])?, a.f32("ln_b", &[FEAT])?),
            cnn_w: a.mat("cnn_W", FEAT, EMB)?,
            cnn_b: a.f32("cnn_b", &[EMB])?,
            d0: a.mat("d0", EMB, HID)?,
            d1: a.mat("d1", HID, HID)?,
            d2: a.mat("d2", HID, EMB)?,
            d3: a.mat("d3", EMB, EMB)?,
            p1: a.mat("p1", EMB, HID)?,
            p3: a.mat("p3", HID, EMB)?,
            eps,
        })
    }

    /// Number of token ids the table holds (17 · 7530).
    pub(crate) fn vocab_rows(&self) -> usize {
        CHUNKS * CHUNK_ROWS
    }

    /// The 512-dim L2-normalized embedding of one token sequence (with `<s>`/`</s>`).
    /// An id past the table is read as `<unk>` (0) rather than panicking.
    pub(crate) fn forward(&self, ids: &[u32]) -> Vec<f32> {
        let t = ids.len().max(1);
        // feats = [embedding | branch 2 | branch 3 | branch 5], one row per token.
        let mut emb = vec![0f32; t * EMB];
        for (row, &id) in emb.chunks_exact_mut(EMB).zip(ids) {
            let id = if (id as usize) < self.vocab_rows() {
                id as usize
            } else {
                0
            };
            let (chunk, r) = (id % CHUNKS, id / CHUNKS);
            let q = &self.table[chunk][r * EMB..(r + 1) * EMB];
            for (o, &v) in row.iter_mut().zip(q) {
                *o = f32::from(v) * self.scale[chunk] + self.lo[chunk];
            }
        }
        let mut x: Vec<f32> = self.proj_b.repeat(t);
        mat_mul(&emb, &self.proj, &mut x);
        x.chunks_exact_mut(3 * CNN)
            .for_each(|r| layernorm(r, &self.ln_proj, self.eps));
        let mut feats = vec![0f32; t * FEAT];
        for (fr, er) in feats.chunks_exact_mut(FEAT).zip(emb.chunks_exact(EMB)) {
            fr[..EMB].copy_from_slice(er);
        }
        for (i, b) in self.branches.iter().enumerate() {
            let xs: Vec<f32> = x
                .chunks_exact(3 * CNN)
                .flat_map(|r| &r[i * CNN..(i + 1) * CNN])
                .copied()
                .collect();
            let h = conv(&xs, t, b, &b.w1, &b.b1);
            let c2 = conv(&h, t, b, &b.w2, &b.b2);
            for (fr, cr) in feats.chunks_exact_mut(FEAT).zip(c2.chunks_exact(CNN)) {
                fr[EMB + i * CNN..EMB + (i + 1) * CNN].copy_from_slice(cr);
            }
        }
        let mut sum = vec![0f32; FEAT];
        for fr in feats.chunks_exact_mut(FEAT) {
            layernorm(fr, &self.ln, self.eps);
            sum.iter_mut().zip(fr.iter()).for_each(|(s, v)| *s += v);
        }
        // The token sum commutes with the linear projection (as in the reference).
        let tf = t as f32;
        let mut mean: Vec<f32> = self.cnn_b.iter().map(|b| b * tf).collect();
        mat_mul(&sum, &self.cnn_w, &mut mean);
        let inv = 1.0 / tf.sqrt();
        mean.iter_mut().for_each(|v| *v *= inv);

        let mut y0 = vec![0f32; HID];
        mat_mul(&mean, &self.d0, &mut y0);
        relu(&mut y0);
        let mut y1 = vec![0f32; HID];
        mat_mul(&mean, &self.p1, &mut y1);
        mat_mul(&y0, &self.d1, &mut y1);
        relu(&mut y1);
        let mut y2 = vec![0f32; EMB];
        mat_mul(&y1, &self.d2, &mut y2);
        relu(&mut y2);
        let mut z = vec![0f32; EMB];
        mat_mul(&y1, &self.p3, &mut z);
        mat_mul(&y2, &self.d3, &mut z);
        z.iter_mut().for_each(|v| *v = v.tanh());
        let norm = z.iter().map(|v| v * v).sum::<f32>().max(self.eps).sqrt();
        z.iter_mut().for_each(|v| *v /= norm);
        z
    }
}

/// One conv layer of a branch over `t` tokens of width 256: each token's
/// window `t-left .. t-left+n` (zeros outside the sentence) through `w`,
/// plus `b`, ReLU, plus the input row (residual).
fn conv(input: &[f32], t: usize, br: &Branch, w: &Mat, b: &[f32]) -> Vec<f32> {
    // The windows side by side, `t × n·256`, as the reference gathers them.
    let mut windows = vec![0f32; t * br.n * CNN];
    for (pos, row) in windows.chunks_exact_mut(br.n * CNN).enumerate() {
        for (k, slot) in row.chunks_exact_mut(CNN).enumerate() {
            // Slot k of the window reads token pos - left + k.
            if let Some(src) = (pos + k).checked_sub(br.left).filter(|&s| s < t) {
                slot.copy_from_slice(&input[src * CNN..(src + 1) * CNN]);
            }
        }
    }
    let mut out = b.repeat(t);
    mat_mul(&windows, w, &mut out);
    for (row, inp) in out.chunks_exact_mut(CNN).zip(input.chunks_exact(CNN)) {
        relu(row);
        row.iter_mut().zip(inp).for_each(|(o, i)| *o += i);
    }
    out
}

/// `out += a · m` for `a` of `rows × m.rows` and `out` of `rows × m.cols`
/// (a vector is one row). Each row of `m` is read once for all rows of `a`:
/// the weights, not the activations, are what does not fit in cache.
fn mat_mul(a: &[f32], m: &Mat, out: &mut [f32]) {
    let rows = a.len() / m.rows;
    debug_assert_eq!((a.len(), out.len()), (rows * m.rows, rows * m.cols));
    let c = m.cols;
    // Four weight rows per pass: each output element is loaded and stored once per four.
    let mut k = 0;
    while k + 4 <= m.rows {
        let w = &m.data[k * c..(k + 4) * c];
        let (w0, w1, w2, w3) = (&w[..c], &w[c..2 * c], &w[2 * c..3 * c], &w[3 * c..]);
        for (i, o) in out.chunks_exact_mut(c).enumerate() {
            let x = &a[i * m.rows + k..i * m.rows + k + 4];
            let (x0, x1, x2, x3) = (x[0], x[1], x[2], x[3]);
            if x0 == 0.0 && x1 == 0.0 && x2 == 0.0 && x3 == 0.0 {
                continue;
            }
            for ((((o, &a0), &a1), &a2), &a3) in o.iter_mut().zip(w0).zip(w1).zip(w2).zip(w3) {
                *o += x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3;
            }
        }
        k += 4;
    }
    for (k, w) in m.data.chunks_exact(c).enumerate().skip(k) {
        for (i, o) in out.chunks_exact_mut(c).enumerate() {
            let v = a[i * m.rows + k];
            if v != 0.0 {
                axpy(v, w, o);
            }
        }
    }
}

fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += a * x);
}

fn relu(v: &mut [f32]) {
    v.iter_mut().for_each(|x| *x = x.max(0.0));
}

/// Layernorm of one row: zero mean, unit variance (biased, `+ eps`), then `· gamma + beta`.
fn layernorm(x: &mut [f32], (gamma, beta): &(Vec<f32>, Vec<f32>), eps: f32) {
    let n = x.len() as f32;
    let mean = x.iter().sum::<f32>() / n;
    x.iter_mut().for_each(|v| *v -= mean);
    let var = x.iter().map(|v| v * v).sum::<f32>() / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, g), b) in x.iter_mut().zip(gamma).zip(beta) {
        *v = *v * inv * g + b;
    }
}
