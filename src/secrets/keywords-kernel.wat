;; The keyword automaton's inner loop (see keywords.ts): one table load per input byte, a hit recorded for every
;; state with an output. src/secrets/keywords-wasm.ts embeds the assembled bytes (test/secrets/keywords.test.ts
;; assembles this file with wabt and checks they match).
(module
  (memory (export "memory") 1)
  ;; the automaton state between calls (a scan goes on where the last one stopped)
  (global $state (export "state") (mut i32) (i32.const 0))
  ;; scan(delta, out, first, p, end, hits): runs memory[p, end) through the automaton whose transitions are u16 at
  ;; delta[state * 256 + byte], whose states from `first` on have an output (i32 at out[state]); writes (position,
  ;; output) i32 pairs at hits for every byte that ends in such a state; returns how many pairs it wrote
  (func (export "scan") (param $delta i32) (param $out i32) (param $first i32) (param $p i32) (param $end i32) (param $hits i32) (result i32)
    (local $s i32) (local $h i32)
    (local.set $s (global.get $state))
    (local.set $h (local.get $hits))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $s (i32.load16_u (i32.add (local.get $delta)
          (i32.shl (i32.or (i32.shl (local.get $s) (i32.const 8)) (i32.load8_u (local.get $p))) (i32.const 1)))))
        (if (i32.ge_u (local.get $s) (local.get $first))
          (then
            (i32.store (local.get $h) (local.get $p))
            (i32.store offset=4 (local.get $h) (i32.load (i32.add (local.get $out) (i32.shl (local.get $s) (i32.const 2)))))
            (local.set $h (i32.add (local.get $h) (i32.const 8)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (global.set $state (local.get $s))
    (i32.shr_u (i32.sub (local.get $h) (local.get $hits)) (i32.const 3))))
