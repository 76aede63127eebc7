;; The walk of lro's own regex engine (search/dfa.ts): a lazy DFA over byte classes, its transition table in this
;; memory, one step a byte: s = T[s + cls[b]]. dfa.ts embeds the assembled bytes and fills the table as the walk
;; asks for states (test/search/dfa.test.ts assembles this file with wabt and checks they match).
;;
;; Memory: [0, 1024) cls: for each byte value, its class times 4 (an i32); [1024, 1032) where run() stopped (pos,
;; state); [1040, 1104) the bytes that leave the accelerated state, as four nibble tables (below); the table from
;; TABLE (4096): a state is the byte offset of its row (C i32: its next state for each class), a next state < 0
;; is no state: -1 not known yet (JavaScript adds it), -2 a match, -3 a record for JavaScript to decide (an
;; escape, a damaged record). The data searched lies after the table.
;;
;; The accelerated state (`acc`, a row offset, or -1) is the state of an unanchored search between attempts
;; (nothing of the pattern started yet): the walk spends most of its bytes there and leaves it only on the bytes
;; a match may start with and the framing ones (the closing quote, an escape), so it skips 16 bytes at a time
;; while none of those is among them, as ripgrep's regex-automata accelerates such states. A byte x is one of
;; them when LO[x & 15] & HI[x >> 4] is not 0, with one pair of tables for ASCII (at 1040: LO[n] has bit h when
;; the byte h * 16 + n is one, HI[h] is 1 << h, 0 for h >= 8) and one for the bytes beyond (at 1072: bit h - 8,
;; HI 0 for h < 8), as Teddy looks bytes up by their nibbles.
(module
  (memory (export "memory") 1)

  ;; run(pos, end, s, acc): walks memory[pos, end) from state s until a next state < 0 (returned; pos is the
  ;; byte whose step it is, s the state before it) or the end (0 returned); pos and s are left at 1024 and 1028.
  (func (export "run") (param $p i32) (param $end i32) (param $s i32) (param $acc i32) (result i32)
    (local $n i32) (local $v v128) (local $m v128) (local $lo v128) (local $hi v128)
    (block $out
      (loop $next
        (br_if $out (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (local.get $s) (local.get $acc))
          (then
            (block $found
              (loop $skip
                (br_if $found (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
                (local.set $v (v128.load (local.get $p)))
                (local.set $lo (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
                (local.set $hi (i8x16.shr_u (local.get $v) (i32.const 4)))
                (local.set $m (v128.or
                  (v128.and (i8x16.swizzle (v128.load (i32.const 1040)) (local.get $lo)) (i8x16.swizzle (v128.load (i32.const 1056)) (local.get $hi)))
                  (v128.and (i8x16.swizzle (v128.load (i32.const 1072)) (local.get $lo)) (i8x16.swizzle (v128.load (i32.const 1088)) (local.get $hi)))))
                (if (v128.any_true (local.get $m))
                  (then
                    (local.set $p (i32.add (local.get $p)
                      (i32.ctz (i8x16.bitmask (i8x16.ne (local.get $m) (v128.const i64x2 0 0))))))
                    (br $found)))
                (local.set $p (i32.add (local.get $p) (i32.const 16)))
                (br $skip)))
            (br_if $out (i32.ge_u (local.get $p) (local.get $end)))))
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
