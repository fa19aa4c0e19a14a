#!/usr/bin/env python3
"""Clients for `prof profile` (issue #23): one real workload for each depth the method stops at,
built from transformers configs with random weights (the H200 has no network).

  python3 profile_clients.py NAME

  decode    batch-1 greedy decode of an 8-layer Llama-style model, eager, KV cache: the host
            launches ~1,000 small kernels a token, the device mostly waits (stop after util)
  train     training steps of a 4-layer Llama-style model, batch 8 x 1024, AdamW: busy, time
            spread over many GEMMs, attention, norms and the optimizer (stop after breakdown)
  lm-head   prefill of a 1-layer Llama-style model with a 256 K vocabulary, 16 K tokens a step:
            the LM-head GEMM takes most of the device time (deep dive)
"""
import sys
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def model(layers, hidden, inter, vocab=32000):
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=inter,
                         num_hidden_layers=layers, num_attention_heads=16, num_key_value_heads=8,
                         max_position_embeddings=4096)
    return LlamaForCausalLM._from_config(config, attn_implementation="sdpa", dtype=torch.bfloat16).to("cuda")


def decode():
    m = model(8, 1024, 2816).eval()
    prompt = torch.randint(0, 32000, (1, 32), device="cuda")
    for call in range(3):
        t = time.time()
        with torch.no_grad():
            m.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=96,
                       min_new_tokens=96, do_sample=False, pad_token_id=0)
        torch.cuda.synchronize()
        print(f"generate {call}: 96 tokens in {time.time() - t:.3f} s", flush=True)


def train():
    m = model(4, 2048, 5632).train()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
    ids = torch.randint(0, 32000, (8, 1024), device="cuda")
    t = time.time()
    for step in range(30):
        loss = m(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"train: 30 steps in {time.time() - t:.3f} s, loss {loss.item():.3f}", flush=True)


def lm_head():
    m = model(1, 1024, 2816, vocab=262144).eval()
    ids = torch.randint(0, 262144, (8, 2048), device="cuda")
    t = time.time()
    with torch.no_grad():
        for step in range(60):
            logits = m(input_ids=ids).logits
    torch.cuda.synchronize()
    print(f"lm-head: 60 prefills in {time.time() - t:.3f} s, logits {tuple(logits.shape)}", flush=True)


if __name__ == "__main__":
    {"decode": decode, "train": train, "lm-head": lm_head}[sys.argv[1]]()
