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
        let mut feats = vec![0f32; t * FEAT];
        for (row, &id) in feats.chunks_exact_mut(FEAT).zip(ids) {
            let id = if (id as usize) < self.vocab_rows() {
                id as usize
            } else {
                0
            };
            let (chunk, r) = (id % CHUNKS, id / CHUNKS);
            let q = &self.table[chunk][r * EMB..(r + 1) * EMB];
            for (o, &v) in row[..EMB].iter_mut().zip(q) {
                *o = f32::from(v) * self.scale[chunk] + self.lo[chunk];
            }
        }
        let mut x = vec![0f32; t * 3 * CNN];
        for (xr, fr) in x.chunks_exact_mut(3 * CNN).zip(feats.chunks_exact(FEAT)) {
            xr.copy_from_slice(&self.proj_b);
            vec_mat(&fr[..EMB], &self.proj, xr);
            layernorm(xr, &self.ln_proj, self.eps);
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
        vec_mat(&sum, &self.cnn_w, &mut mean);
        let inv = 1.0 / tf.sqrt();
        mean.iter_mut().for_each(|v| *v *= inv);

        let mut y0 = vec![0f32; HID];
        vec_mat(&mean, &self.d0, &mut y0);
        relu(&mut y0);
        let mut y1 = vec![0f32; HID];
        vec_mat(&mean, &self.p1, &mut y1);
        vec_mat(&y0, &self.d1, &mut y1);
        relu(&mut y1);
        let mut y2 = vec![0f32; EMB];
        vec_mat(&y1, &self.d2, &mut y2);
        relu(&mut y2);
        let mut z = vec![0f32; EMB];
        vec_mat(&y1, &self.p3, &mut z);
        vec_mat(&y2, &self.d3, &mut z);
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
    let mut out = vec![0f32; t * CNN];
    for (pos, row) in out.chunks_exact_mut(CNN).enumerate() {
        row.copy_from_slice(b);
        for k in 0..br.n {
            // Slot k of the window reads token pos - left + k.
            let Some(src) = (pos + k).checked_sub(br.left).filter(|&s| s < t) else {
                continue;
            };
            let wk = &w.data[k * CNN * CNN..(k + 1) * CNN * CNN];
            for (r, &v) in input[src * CNN..(src + 1) * CNN].iter().enumerate() {
                if v != 0.0 {
                    axpy(v, &wk[r * CNN..(r + 1) * CNN], row);
                }
            }
        }
        relu(row);
        row.iter_mut()
            .zip(&input[pos * CNN..(pos + 1) * CNN])
            .for_each(|(o, i)| *o += i);
    }
    out
}

/// `out += v · m` for a row vector `v` of length `m.rows`.
fn vec_mat(v: &[f32], m: &Mat, out: &mut [f32]) {
    debug_assert_eq!((v.len(), out.len()), (m.rows, m.cols));
    for (r, &a) in v.iter().enumerate() {
        if a != 0.0 {
            axpy(a, &m.data[r * m.cols..(r + 1) * m.cols], out);
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
