//! The blocks of a trunk (and of a nested bottleneck): ordinary residual blocks, global
//! pooling blocks, nested bottlenecks, transformer attention and feed-forward blocks, each
//! read and its channel counts checked against the trunk's. Knows nothing of the heads, of
//! boards or of evaluation.

use super::layers::{
    Attention, Block, FeedForward, GlobalPoolingBlock, NestedBottleneckBlock, ResidualBlock, Rope,
    TransformerNorm,
};
use super::read::{activation, batch_norm, conv, fail, matmul, same, Reader, Res};

fn residual_block(r: &mut Reader, parent: &str, version: i32) -> Res<ResidualBlock> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let b = ResidualBlock {
        pre_bn: batch_norm(r, l)?,
        pre_activation: activation(r, l, version)?,
        regular_conv: conv(r, l)?,
        mid_bn: batch_norm(r, l)?,
        mid_activation: activation(r, l, version)?,
        final_conv: conv(r, l)?,
        name: name.clone(),
    };
    same(
        l,
        "preBN channels",
        b.pre_bn.channels,
        "regular conv inputs",
        b.regular_conv.in_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "regular conv outputs",
        b.regular_conv.out_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "final conv inputs",
        b.final_conv.in_channels,
    )?;
    Ok(b)
}

fn gpool_block(r: &mut Reader, parent: &str, version: i32) -> Res<GlobalPoolingBlock> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let b = GlobalPoolingBlock {
        pre_bn: batch_norm(r, l)?,
        pre_activation: activation(r, l, version)?,
        regular_conv: conv(r, l)?,
        gpool_conv: conv(r, l)?,
        gpool_bn: batch_norm(r, l)?,
        gpool_activation: activation(r, l, version)?,
        gpool_to_bias: matmul(r, l)?,
        mid_bn: batch_norm(r, l)?,
        mid_activation: activation(r, l, version)?,
        final_conv: conv(r, l)?,
        name: name.clone(),
    };
    same(
        l,
        "preBN channels",
        b.pre_bn.channels,
        "regular conv inputs",
        b.regular_conv.in_channels,
    )?;
    same(
        l,
        "preBN channels",
        b.pre_bn.channels,
        "gpool conv inputs",
        b.gpool_conv.in_channels,
    )?;
    same(
        l,
        "gpoolBN channels",
        b.gpool_bn.channels,
        "gpool conv outputs",
        b.gpool_conv.out_channels,
    )?;
    same(
        l,
        "3 x gpoolBN channels",
        3 * b.gpool_bn.channels,
        "gpool-to-bias inputs",
        b.gpool_to_bias.in_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "regular conv outputs",
        b.regular_conv.out_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "gpool-to-bias outputs",
        b.gpool_to_bias.out_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "final conv inputs",
        b.final_conv.in_channels,
    )?;
    Ok(b)
}

fn nested_block(
    r: &mut Reader,
    parent: &str,
    version: i32,
    depth: usize,
) -> Res<NestedBottleneckBlock> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let count = r.dim(l, "number of inner blocks")?;
    let pre_bn = batch_norm(r, l)?;
    let pre_activation = activation(r, l, version)?;
    let pre_conv = conv(r, l)?;
    let blocks = block_stack(r, l, version, count, pre_conv.out_channels, depth + 1)?;
    let post_bn = batch_norm(r, l)?;
    let post_activation = activation(r, l, version)?;
    let post_conv = conv(r, l)?;
    same(
        l,
        "preBN channels",
        pre_bn.channels,
        "pre conv inputs",
        pre_conv.in_channels,
    )?;
    same(
        l,
        "postBN channels",
        post_bn.channels,
        "pre conv outputs",
        pre_conv.out_channels,
    )?;
    same(
        l,
        "postBN channels",
        post_bn.channels,
        "post conv inputs",
        post_conv.in_channels,
    )?;
    Ok(NestedBottleneckBlock {
        name,
        pre_bn,
        pre_activation,
        pre_conv,
        blocks,
        post_bn,
        post_activation,
        post_conv,
    })
}

fn transformer_norm(r: &mut Reader, parent: &str) -> Res<TransformerNorm> {
    let name = r.name(parent, "an RMSNorm's name")?;
    let l = name.as_str();
    let channels = r.dim(l, "channels")?;
    let epsilon = r.float32(l, "epsilon")?;
    if !(epsilon > 0.0 && epsilon <= 1.0) {
        return fail(l, format!("epsilon {epsilon} is not in (0, 1]"));
    }
    let weight = r.floats(l, channels)?;
    Ok(TransformerNorm {
        name,
        channels,
        epsilon,
        weight,
    })
}

fn attention(r: &mut Reader, parent: &str) -> Res<Attention> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let heads = r.dim(l, "number of heads")?;
    let kv_heads = r.dim(l, "number of key-value heads")?;
    let q_head_dim = r.dim(l, "query head size")?;
    let v_head_dim = r.dim(l, "value head size")?;
    let use_rope = r.flag(l, "RoPE flag")?;
    let learnable = r.flag(l, "learnable-RoPE flag")?;
    if heads % kv_heads != 0 {
        return fail(
            l,
            format!("{heads} heads are not a multiple of {kv_heads} key-value heads"),
        );
    }
    if use_rope && q_head_dim % 2 != 0 {
        return fail(
            l,
            format!("query head size {q_head_dim} must be even with RoPE"),
        );
    }
    let pre_norm = transformer_norm(r, l)?;
    let q = matmul(r, l)?;
    let k = matmul(r, l)?;
    let v = matmul(r, l)?;
    let out = matmul(r, l)?;
    same(
        l,
        "query outputs",
        q.out_channels,
        "heads x query head size",
        heads * q_head_dim,
    )?;
    same(
        l,
        "key outputs",
        k.out_channels,
        "key-value heads x query head size",
        kv_heads * q_head_dim,
    )?;
    same(
        l,
        "value outputs",
        v.out_channels,
        "key-value heads x value head size",
        kv_heads * v_head_dim,
    )?;
    same(
        l,
        "output inputs",
        out.in_channels,
        "heads x value head size",
        heads * v_head_dim,
    )?;
    same(
        l,
        "query inputs",
        q.in_channels,
        "norm channels",
        pre_norm.channels,
    )?;
    same(
        l,
        "key inputs",
        k.in_channels,
        "norm channels",
        pre_norm.channels,
    )?;
    same(
        l,
        "value inputs",
        v.in_channels,
        "norm channels",
        pre_norm.channels,
    )?;
    let rope = if !use_rope {
        Rope::None
    } else if learnable {
        let fname = r.name(l, "the RoPE frequencies' name")?;
        let f = fname.as_str();
        let nkv = r.dim(f, "RoPE key-value heads")?;
        let pairs = r.dim(f, "RoPE pairs")?;
        let two = r.dim(f, "RoPE last dimension")?;
        same(f, "RoPE key-value heads", nkv, "key-value heads", kv_heads)?;
        same(
            f,
            "RoPE pairs",
            pairs,
            "query head size / 2",
            q_head_dim / 2,
        )?;
        same(f, "RoPE last dimension", two, "two", 2)?;
        Rope::Learnable {
            freqs: r.floats(f, nkv * pairs * 2)?,
        }
    } else {
        let tname = r.name(l, "the RoPE theta's name")?;
        let theta = r.float32(&tname, "RoPE theta")?;
        if !(theta > 0.0 && theta.is_finite()) {
            return fail(
                &tname,
                format!("RoPE theta {theta} is not positive and finite"),
            );
        }
        Rope::Fixed { theta }
    };
    Ok(Attention {
        name,
        heads,
        kv_heads,
        q_head_dim,
        v_head_dim,
        rope,
        pre_norm,
        q,
        k,
        v,
        out,
    })
}

fn feed_forward(r: &mut Reader, parent: &str) -> Res<FeedForward> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let channels = r.dim(l, "channels")?;
    let ffn_channels = r.dim(l, "hidden channels")?;
    let swiglu = r.flag(l, "SwiGLU flag")?;
    let pre_norm = transformer_norm(r, l)?;
    let linear1 = matmul(r, l)?;
    let gate = if swiglu { Some(matmul(r, l)?) } else { None };
    let linear2 = matmul(r, l)?;
    same(
        l,
        "linear1 inputs",
        linear1.in_channels,
        "channels",
        channels,
    )?;
    same(
        l,
        "linear1 outputs",
        linear1.out_channels,
        "hidden channels",
        ffn_channels,
    )?;
    if let Some(g) = &gate {
        same(l, "gate inputs", g.in_channels, "channels", channels)?;
        same(
            l,
            "gate outputs",
            g.out_channels,
            "hidden channels",
            ffn_channels,
        )?;
    }
    same(
        l,
        "linear2 inputs",
        linear2.in_channels,
        "hidden channels",
        ffn_channels,
    )?;
    same(
        l,
        "linear2 outputs",
        linear2.out_channels,
        "channels",
        channels,
    )?;
    same(l, "norm channels", pre_norm.channels, "channels", channels)?;
    Ok(FeedForward {
        name,
        channels,
        ffn_channels,
        pre_norm,
        linear1,
        gate,
        linear2,
    })
}

/// `count` blocks, each taking and giving `channels` channels.
pub(super) fn block_stack(
    r: &mut Reader,
    parent: &str,
    version: i32,
    count: usize,
    channels: usize,
    depth: usize,
) -> Res<Vec<Block>> {
    if depth > 8 {
        return fail(parent, "nested bottleneck blocks nested more than 8 deep");
    }
    let mut blocks = Vec::new();
    for _ in 0..count {
        let kind = r.token(parent, "a block kind")?;
        let block = match kind.as_str() {
            "ordinary_block" => {
                let b = residual_block(r, parent, version)?;
                same(
                    &b.name,
                    "preBN channels",
                    b.pre_bn.channels,
                    "trunk channels",
                    channels,
                )?;
                same(
                    &b.name,
                    "final conv outputs",
                    b.final_conv.out_channels,
                    "trunk channels",
                    channels,
                )?;
                Block::Ordinary(b)
            }
            "gpool_block" => {
                let b = gpool_block(r, parent, version)?;
                same(
                    &b.name,
                    "preBN channels",
                    b.pre_bn.channels,
                    "trunk channels",
                    channels,
                )?;
                same(
                    &b.name,
                    "final conv outputs",
                    b.final_conv.out_channels,
                    "trunk channels",
                    channels,
                )?;
                Block::GlobalPooling(b)
            }
            "nested_bottleneck_block" => {
                let b = nested_block(r, parent, version, depth)?;
                same(
                    &b.name,
                    "preBN channels",
                    b.pre_bn.channels,
                    "trunk channels",
                    channels,
                )?;
                same(
                    &b.name,
                    "post conv outputs",
                    b.post_conv.out_channels,
                    "trunk channels",
                    channels,
                )?;
                Block::NestedBottleneck(b)
            }
            "transformer_attention_block" => {
                let b = attention(r, parent)?;
                same(
                    &b.name,
                    "query inputs",
                    b.q.in_channels,
                    "trunk channels",
                    channels,
                )?;
                same(
                    &b.name,
                    "output outputs",
                    b.out.out_channels,
                    "trunk channels",
                    channels,
                )?;
                Block::Attention(b)
            }
            "transformer_ffn_block" => {
                let b = feed_forward(r, parent)?;
                same(&b.name, "channels", b.channels, "trunk channels", channels)?;
                Block::FeedForward(b)
            }
            _ => return fail(parent, format!("unknown block kind {kind:?}")),
        };
        blocks.push(block);
    }
    Ok(blocks)
}
