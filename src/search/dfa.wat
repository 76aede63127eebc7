;; The walk of lro's own regex engine (search/dfa.ts): a lazy DFA over byte classes, its transition table in this
;; memory, one step a byte: s = T[s + cls[b]]. dfa.ts embeds the assembled bytes and fills the table as the walk
;; asks for states (test/search/dfa.test.ts assembles this file with wabt and checks they match).
;;
;; Memory: [0, 1024) cls: for each byte value, its class times 4 (an i32); [1024, 1032) where run() stopped (pos,
;; state); the table from TABLE (4096): a state is the byte offset of its row (C i32: its next state for each
;; class), a next state < 0 is no state: -1 not known yet (JavaScript adds it), -2 a match, -3 a record for
;; JavaScript to decide (an escape, a damaged record). The data searched lies after the table.
(module
  (memory (export "memory") 1)

  ;; run(pos, end, s): walks memory[pos, end) from state s until a next state < 0 (returned; pos is the byte whose
  ;; step it is, s the state before it) or the end (0 returned); pos and s are left at 1024 and 1028.
  (func (export "run") (param $p i32) (param $end i32) (param $s i32) (result i32)
    (local $n i32)
    (block $out
      (loop $next
        (br_if $out (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $n (i32.load offset=4096
          (i32.add (local.get $s) (i32.load (i32.shl (i32.load8_u (local.get $p)) (i32.const 2))))))
        (if (i32.lt_s (local.get $n) (i32.const 0))
          (then
            (i32.store (i32.const 1024) (local.get $p))
            (i32.store (i32.const 1028) (local.get $s))
            (return (local.get $n))))
        (local.set $s (local.get $n))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (i32.store (i32.const 1024) (local.get $p))
    (i32.store (i32.const 1028) (local.get $s))
    (i32.const 0)))
