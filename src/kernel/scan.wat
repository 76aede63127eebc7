;; The byte-scanning kernel of `lro grep`, 16 bytes at a time with WebAssembly SIMD; src/search/scan.ts embeds
;; the assembled bytes (test/search/scan.test.ts assembles this file with wabt and checks they match).
;;
;; Memory: [0, 4096) holds up to 8 needles; [4096, 4256) lines()'s state; [8192, 9008) the tables, state and scratch
;; of anyOf(), wordLines() and Teddy; records are read into memory from DATA (scan.ts) on, so the search runs where the
;; bytes landed.
;;   needle k, at k * 512:  +0 length  +4 p1  +8 p2  (two positions of the needle checked first)
;;                          +16 v128 splat of byte p1  +32 its fold mask  +48 byte p2  +64 its fold mask
;;                          +128 the needle's bytes (lower case when folded), +320 a fold mask per byte
;;   A fold mask is 0x20 for an ASCII letter searched without case (b | 0x20 is then its lower case), else 0.
;; Searches read up to 48 bytes past `end`: memory keeps that much room after any data.
;;
;; lines() walks whole lines (records, each ending in \n) from one needle hit to the next, keeping the record
;; number, and settles on its own the lines that need no JavaScript: a hit of a "definite" needle (the whole
;; pattern is that literal) in a record without escapes is a match; printed as `N:text\n` into the output area.
;; Its state lives at STATE (4096), as i32 slots, read and written by scan.ts:
;;   +0 pos: a line start, where to go on      +4 end: end of the data (just after a \n)
;;   +8 line: number of the last line passed    +12 out: where output goes on   +16 outEnd: end of the output area
;;   +20 flags: 1 print, 2 quoted (text records: the text is inside the quotes; a backslash means escapes),
;;              4 whole words (-w; needle 0 the only definite one): a hit with a non-ASCII byte beside it is left
;;              to JavaScript (it may be a letter)
;;   +24 maxText: longer texts are left to JavaScript when printing   +28 selected   +32 limit
;;   +36 ls, +40 le: the line left to JavaScript (its first byte and its \n)
;;   +44 definite: needles 0..definite-1 are definite   +48 n: needles set   +52 esc: the line for JavaScript has a
;;   backslash
(module
  (memory (export "memory") 2)

  ;; count(start, end): the number of bytes equal to 10 (\n) in memory[start, end)
  (func $count (export "count") (param $p i32) (param $end i32) (result i32)
    (local $c i32) (local $acc v128) (local $k i32) (local $vend i32)
    (local.set $vend (i32.sub (local.get $end) (i32.const 16)))
    (block $done
      (loop $outer
        (br_if $done (i32.gt_s (local.get $p) (local.get $vend)))
        (local.set $acc (v128.const i64x2 0 0))
        (local.set $k (i32.const 0))
        (block $flush
          (loop $inner
            (br_if $flush (i32.gt_s (local.get $p) (local.get $vend)))
            (br_if $flush (i32.ge_u (local.get $k) (i32.const 255)))
            (local.set $acc (i8x16.sub (local.get $acc)
              (i8x16.eq (v128.load (local.get $p)) (i8x16.splat (i32.const 10)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $inner)))
        (local.set $acc (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc))))
        (local.set $c (i32.add (local.get $c)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                   (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc))))))
        (br $outer)))
    (block $tdone
      (loop $tail
        (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))
          (then (local.set $c (i32.add (local.get $c) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (local.get $c))

  ;; is(pos, k): whether needle k is at pos (its whole length, folding where its masks say)
  (func $is (param $pos i32) (param $k i32) (result i32)
    (local $base i32) (local $len i32) (local $i i32)
    (local.set $base (i32.shl (local.get $k) (i32.const 9)))
    (local.set $len (i32.load (local.get $base)))
    (block $no
      (loop $next
        (if (i32.ge_u (local.get $i) (local.get $len)) (then (return (i32.const 1))))
        (br_if $no (i32.ne
          (i32.or (i32.load8_u (i32.add (local.get $pos) (local.get $i)))
                  (i32.load8_u offset=320 (i32.add (local.get $base) (local.get $i))))
          (i32.load8_u offset=128 (i32.add (local.get $base) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; teddy(i, end, n): find() for several needles, candidates found 16 positions at a time by the needles' first
  ;; (up to) three bytes, each looked up by its two nibbles in tables of needles (at 8832: low and high nibble
  ;; tables for byte 0, 1 and 2; a bit per needle), as ripgrep's Teddy does
  (func $teddy (param $i i32) (param $end i32) (param $n i32) (result i32)
    (local $lo0 v128) (local $hi0 v128) (local $lo1 v128) (local $hi1 v128) (local $lo2 v128) (local $hi2 v128)
    (local $a v128) (local $b v128) (local $v v128) (local $f v128) (local $bits i32) (local $pos i32) (local $m i32) (local $k i32)
    (local.set $f (i8x16.splat (i32.const 15)))
    (local.set $lo0 (v128.load (i32.const 8832)))
    (local.set $hi0 (v128.load (i32.const 8848)))
    (local.set $lo1 (v128.load (i32.const 8864)))
    (local.set $hi1 (v128.load (i32.const 8880)))
    (local.set $lo2 (v128.load (i32.const 8896)))
    (local.set $hi2 (v128.load (i32.const 8912)))
    ;; 32 positions per round: two blocks of 16, each three loads looked up by nibbles
    (block $done
      (loop $round
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $a (v128.and
          (i8x16.swizzle (local.get $lo0) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi0) (i8x16.shr_u (local.get $v) (i32.const 4)))))
        (local.set $v (v128.load offset=1 (local.get $i)))
        (local.set $a (v128.and (local.get $a) (v128.and
          (i8x16.swizzle (local.get $lo1) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi1) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (local.set $v (v128.load offset=2 (local.get $i)))
        (local.set $a (v128.and (local.get $a) (v128.and
          (i8x16.swizzle (local.get $lo2) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi2) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (local.set $v (v128.load offset=16 (local.get $i)))
        (local.set $b (v128.and
          (i8x16.swizzle (local.get $lo0) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi0) (i8x16.shr_u (local.get $v) (i32.const 4)))))
        (local.set $v (v128.load offset=17 (local.get $i)))
        (local.set $b (v128.and (local.get $b) (v128.and
          (i8x16.swizzle (local.get $lo1) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi1) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (local.set $v (v128.load offset=18 (local.get $i)))
        (local.set $b (v128.and (local.get $b) (v128.and
          (i8x16.swizzle (local.get $lo2) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi2) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (if (v128.any_true (v128.or (local.get $a) (local.get $b)))
          (then
            (v128.store (i32.const 8944) (local.get $a))
            (v128.store (i32.const 8960) (local.get $b))
            (local.set $bits (i32.or (i8x16.bitmask (i8x16.ne (local.get $a) (v128.const i64x2 0 0)))
                                     (i32.shl (i8x16.bitmask (i8x16.ne (local.get $b) (v128.const i64x2 0 0))) (i32.const 16))))
            (loop $bit
              (local.set $pos (i32.add (local.get $i) (i32.ctz (local.get $bits))))
              (if (i32.ge_u (local.get $pos) (local.get $end)) (then (return (i32.const -1))))
              (local.set $m (i32.load8_u offset=8944 (i32.ctz (local.get $bits))))
              (local.set $k (i32.const 0))
              (block $tried
                (loop $each
                  (br_if $tried (i32.ge_u (local.get $k) (local.get $n)))
                  (if (i32.and (i32.and (i32.shr_u (local.get $m) (local.get $k)) (i32.const 1))
                               (i32.le_u (i32.add (local.get $pos) (i32.load (i32.shl (local.get $k) (i32.const 9)))) (local.get $end)))
                    (then
                      (if (call $is (local.get $pos) (local.get $k))
                        (then
                          (i32.store (i32.const 4092) (local.get $k))
                          (return (local.get $pos))))))
                  (local.set $k (i32.add (local.get $k) (i32.const 1)))
                  (br $each)))
              (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
              (br_if $bit (local.get $bits)))))
        (local.set $i (i32.add (local.get $i) (i32.const 32)))
        (br $round)))
    (i32.const -1))

  ;; find(start, end, n): the first position p in [start, end) where one of needles 0..n-1 lies wholly before
  ;; end; -1 if none. The needle found is stored at 4092 (the lowest k when several start at p).
  (func $find (export "find") (param $i i32) (param $end i32) (param $n i32) (result i32)
    (local $last i32) (local $bits i32) (local $pos i32) (local $any v128)
    (local $p1 i32) (local $p2 i32) (local $b1 v128) (local $m1 v128) (local $b2 v128) (local $m2 v128) (local $c v128)
    ;; several needles: Teddy (its tables are set with the needles)
    (if (i32.ge_u (local.get $n) (i32.const 2))
      (then (return (call $teddy (local.get $i) (local.get $end) (local.get $n)))))
    ;; positions past end - (the needle's length) cannot hold it
    (local.set $last (i32.sub (local.get $end) (i32.load (i32.const 0))))
    ;; one needle: its vectors stay in locals, 32 positions per round
    (if (i32.eq (local.get $n) (i32.const 1))
      (then
        (local.set $p1 (i32.load (i32.const 4)))
        (local.set $p2 (i32.load (i32.const 8)))
        (local.set $b1 (v128.load (i32.const 16)))
        (local.set $m1 (v128.load (i32.const 32)))
        (local.set $b2 (v128.load (i32.const 48)))
        (local.set $m2 (v128.load (i32.const 64)))
        (block $done
          (loop $round
            (br_if $done (i32.gt_s (local.get $i) (local.get $last)))
            (local.set $any (v128.and
              (i8x16.eq (v128.or (v128.load (i32.add (local.get $i) (local.get $p1))) (local.get $m1)) (local.get $b1))
              (i8x16.eq (v128.or (v128.load (i32.add (local.get $i) (local.get $p2))) (local.get $m2)) (local.get $b2))))
            (local.set $c (v128.and
              (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $i) (local.get $p1))) (local.get $m1)) (local.get $b1))
              (i8x16.eq (v128.or (v128.load offset=16 (i32.add (local.get $i) (local.get $p2))) (local.get $m2)) (local.get $b2))))
            (if (v128.any_true (v128.or (local.get $any) (local.get $c)))
              (then
                (local.set $bits (i32.or (i8x16.bitmask (local.get $any)) (i32.shl (i8x16.bitmask (local.get $c)) (i32.const 16))))
                (block $checked
                  (loop $bit
                    (br_if $checked (i32.eqz (local.get $bits)))
                    (local.set $pos (i32.add (local.get $i) (i32.ctz (local.get $bits))))
                    (if (i32.gt_s (local.get $pos) (local.get $last)) (then (return (i32.const -1))))
                    (if (call $is (local.get $pos) (i32.const 0))
                      (then
                        (i32.store (i32.const 4092) (i32.const 0))
                        (return (local.get $pos))))
                    (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
                    (br $bit)))))
            (local.set $i (i32.add (local.get $i) (i32.const 32)))
            (br $round)))
        (return (i32.const -1))))
    (i32.const -1))
  ;; word(c): whether byte c is an ASCII word character [A-Za-z0-9_]
  (func $word (param $c i32) (result i32)
    (i32.or
      (i32.or (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10))
              (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 32)) (i32.const 97)) (i32.const 26)))
      (i32.eq (local.get $c) (i32.const 95))))

  ;; lines(): see the top of this file. Returns 0 at the end of the data, 1 with a line for JavaScript (ls, le;
  ;; line is its number; pos is past it), 2 when the output area is full, 3 when selected reaches limit.
  (func (export "lines") (result i32)
    (local $pos i32) (local $end i32) (local $line i32) (local $out i32) (local $flags i32) (local $n i32)
    (local $hit i32) (local $ls i32) (local $le i32) (local $k i32) (local $c i32) (local $esc i32)
    (local $ts i32) (local $te i32) (local $v i32) (local $d i32) (local $ok i32)
    (local.set $pos (i32.load (i32.const 4096)))
    (local.set $end (i32.load (i32.const 4100)))
    (local.set $line (i32.load (i32.const 4104)))
    (local.set $out (i32.load (i32.const 4108)))
    (local.set $flags (i32.load (i32.const 4116)))
    (local.set $n (i32.load (i32.const 4144)))
    (block $exit
      (block $js
        (loop $next
          (local.set $hit (call $find (local.get $pos) (local.get $end) (local.get $n)))
          (if (i32.lt_s (local.get $hit) (i32.const 0))
            (then
              (local.set $line (i32.add (local.get $line) (call $count (local.get $pos) (local.get $end))))
              (local.set $pos (local.get $end))
              (i32.store (i32.const 4200) (i32.const 0))
              (br $exit)))
          (local.set $k (i32.load (i32.const 4092)))
          ;; the line around the hit, noting any backslash in it
          (local.set $esc (i32.const 0))
          (local.set $ls (local.get $hit))
          (block $found
            (loop $back
              (br_if $found (i32.le_u (local.get $ls) (local.get $pos)))
              (local.set $c (i32.load8_u (i32.sub (local.get $ls) (i32.const 1))))
              (br_if $found (i32.eq (local.get $c) (i32.const 10)))
              (if (i32.eq (local.get $c) (i32.const 92)) (then (local.set $esc (i32.const 1))))
              (local.set $ls (i32.sub (local.get $ls) (i32.const 1)))
              (br $back)))
          (local.set $le (local.get $hit))
          (block $found
            (loop $fwd
              (local.set $c (i32.load8_u (local.get $le)))
              (br_if $found (i32.eq (local.get $c) (i32.const 10)))
              (if (i32.eq (local.get $c) (i32.const 92)) (then (local.set $esc (i32.const 1))))
              (local.set $le (i32.add (local.get $le) (i32.const 1)))
              (br $fwd)))
          (local.set $line (i32.add (local.get $line) (i32.add (call $count (local.get $pos) (local.get $ls)) (i32.const 1))))
          (local.set $pos (i32.add (local.get $le) (i32.const 1)))
          (br_if $js (i32.ge_u (local.get $k) (i32.load (i32.const 4140))))
          ;; a text record with escapes, or not even quoted (damaged: JavaScript says so)
          (if (i32.and (local.get $flags) (i32.const 2))
            (then
              (br_if $js (local.get $esc))
              (br_if $js (i32.lt_u (i32.sub (local.get $le) (local.get $ls)) (i32.const 2)))
              (br_if $js (i32.ne (i32.load8_u (local.get $ls)) (i32.const 34)))
              (br_if $js (i32.ne (i32.load8_u (i32.sub (local.get $le) (i32.const 1))) (i32.const 34)))))
          (local.set $ts (local.get $ls))
          (local.set $te (local.get $le))
          (if (i32.and (local.get $flags) (i32.const 2))
            (then
              (local.set $ts (i32.add (local.get $ls) (i32.const 1)))
              (local.set $te (i32.sub (local.get $le) (i32.const 1)))))
          (if (i32.and (local.get $flags) (i32.const 4))
            (then
              ;; whole words: try each hit in the line until one has no word character on either side
              (block $word
                (loop $try
                  (local.set $ok (i32.const 1))
                  (if (i32.gt_u (local.get $hit) (local.get $ts))
                    (then
                      (local.set $c (i32.load8_u (i32.sub (local.get $hit) (i32.const 1))))
                      (br_if $js (i32.ge_u (local.get $c) (i32.const 128)))
                      (if (call $word (local.get $c)) (then (local.set $ok (i32.const 0))))))
                  (local.set $v (i32.add (local.get $hit) (i32.load (i32.const 0))))
                  (if (i32.lt_u (local.get $v) (local.get $te))
                    (then
                      (local.set $c (i32.load8_u (local.get $v)))
                      (br_if $js (i32.ge_u (local.get $c) (i32.const 128)))
                      (if (call $word (local.get $c)) (then (local.set $ok (i32.const 0))))))
                  (br_if $word (local.get $ok))
                  (local.set $hit (call $find (i32.add (local.get $hit) (i32.const 1)) (local.get $te) (local.get $n)))
                  (br_if $next (i32.lt_s (local.get $hit) (i32.const 0)))
                  (br_if $js (i32.ge_u (i32.load (i32.const 4092)) (i32.load (i32.const 4140))))
                  (br $try)))))
          (if (i32.and (local.get $flags) (i32.const 1))
            (then
              (br_if $js (i32.gt_u (i32.sub (local.get $te) (local.get $ts)) (i32.load (i32.const 4120))))
              (if (i32.gt_u (i32.add (i32.add (local.get $out) (i32.sub (local.get $te) (local.get $ts))) (i32.const 16)) (i32.load (i32.const 4112)))
                (then
                  ;; no room: give this line back, to be found again
                  (local.set $pos (local.get $ls))
                  (local.set $line (i32.sub (local.get $line) (i32.const 1)))
                  (i32.store (i32.const 4200) (i32.const 2))
                  (br $exit)))
              ;; the number, its digits written backwards from the end of a 10-byte field
              (local.set $v (local.get $line))
              (local.set $d (i32.const 0))
              (loop $digits
                (i32.store8 (i32.sub (i32.const 4240) (local.get $d)) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
                (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
                (local.set $d (i32.add (local.get $d) (i32.const 1)))
                (br_if $digits (local.get $v)))
              (memory.copy (local.get $out) (i32.sub (i32.const 4241) (local.get $d)) (local.get $d))
              (local.set $out (i32.add (local.get $out) (local.get $d)))
              (i32.store8 (local.get $out) (i32.const 58))
              (local.set $out (i32.add (local.get $out) (i32.const 1)))
              (memory.copy (local.get $out) (local.get $ts) (i32.sub (local.get $te) (local.get $ts)))
              (local.set $out (i32.add (local.get $out) (i32.sub (local.get $te) (local.get $ts))))
              (i32.store8 (local.get $out) (i32.const 10))
              (local.set $out (i32.add (local.get $out) (i32.const 1)))))
          (i32.store (i32.const 4124) (i32.add (i32.load (i32.const 4124)) (i32.const 1)))
          (if (i32.ge_u (i32.load (i32.const 4124)) (i32.load (i32.const 4128)))
            (then
              (i32.store (i32.const 4200) (i32.const 3))
              (br $exit)))
          (br $next)))
      ;; a line for JavaScript
      (i32.store (i32.const 4132) (local.get $ls))
      (i32.store (i32.const 4136) (local.get $le))
      (i32.store (i32.const 4148) (local.get $esc))
      (i32.store (i32.const 4200) (i32.const 1)))
    (i32.store (i32.const 4096) (local.get $pos))
    (i32.store (i32.const 4104) (local.get $line))
    (i32.store (i32.const 4108) (local.get $out))
    (i32.load (i32.const 4200)))

  ;; word(pos, k, end): whether word k of the word table (lower-case ASCII letters) is at pos, in either case
  (func $isWord (param $pos i32) (param $k i32) (param $end i32) (result i32)
    (local $base i32) (local $len i32) (local $j i32)
    (local.set $base (i32.add (i32.const 8192) (i32.shl (local.get $k) (i32.const 5))))
    (local.set $len (i32.load8_u offset=24 (local.get $base)))
    (if (i32.gt_u (i32.add (local.get $pos) (local.get $len)) (local.get $end)) (then (return (i32.const 0))))
    (block $no
      (loop $next
        (if (i32.ge_u (local.get $j) (local.get $len)) (then (return (i32.const 1))))
        (br_if $no (i32.ne (i32.or (i32.load8_u (i32.add (local.get $pos) (local.get $j))) (i32.const 32))
                           (i32.load8_u (i32.add (local.get $base) (local.get $j)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; anyOf(start, end): the first position in [start, end) where one of the words of the word table (at 8192: up
  ;; to 16 entries of 32 bytes: the word, lower case, then its length at +24 and its bucket at +25; the count at
  ;; 8800) lies wholly before end, in either case; -1 if none. The word found is stored at 8804. Candidates are
  ;; found 16 positions at a time by the words' first three bytes, each looked up by its two nibbles in tables of
  ;; buckets (at 8704: low and high nibble tables for byte 0, 1 and 2), as ripgrep's Teddy does; up to 8 buckets.
  (func $anyOf (export "anyOf") (param $i i32) (param $end i32) (result i32)
    (local $lo0 v128) (local $hi0 v128) (local $lo1 v128) (local $hi1 v128) (local $lo2 v128) (local $hi2 v128)
    (local $a v128) (local $b v128) (local $v v128) (local $f v128) (local $bits i32) (local $pos i32) (local $m i32) (local $k i32) (local $n i32)
    (local.set $f (i8x16.splat (i32.const 15)))
    (local.set $lo0 (v128.load (i32.const 8704)))
    (local.set $hi0 (v128.load (i32.const 8720)))
    (local.set $lo1 (v128.load (i32.const 8736)))
    (local.set $hi1 (v128.load (i32.const 8752)))
    (local.set $lo2 (v128.load (i32.const 8768)))
    (local.set $hi2 (v128.load (i32.const 8784)))
    (local.set $n (i32.load (i32.const 8800)))
    ;; 32 positions per round, as teddy() does
    (block $done
      (loop $round
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $a (v128.and
          (i8x16.swizzle (local.get $lo0) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi0) (i8x16.shr_u (local.get $v) (i32.const 4)))))
        (local.set $v (v128.load offset=1 (local.get $i)))
        (local.set $a (v128.and (local.get $a) (v128.and
          (i8x16.swizzle (local.get $lo1) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi1) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (local.set $v (v128.load offset=2 (local.get $i)))
        (local.set $a (v128.and (local.get $a) (v128.and
          (i8x16.swizzle (local.get $lo2) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi2) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (local.set $v (v128.load offset=16 (local.get $i)))
        (local.set $b (v128.and
          (i8x16.swizzle (local.get $lo0) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi0) (i8x16.shr_u (local.get $v) (i32.const 4)))))
        (local.set $v (v128.load offset=17 (local.get $i)))
        (local.set $b (v128.and (local.get $b) (v128.and
          (i8x16.swizzle (local.get $lo1) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi1) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (local.set $v (v128.load offset=18 (local.get $i)))
        (local.set $b (v128.and (local.get $b) (v128.and
          (i8x16.swizzle (local.get $lo2) (v128.and (local.get $v) (local.get $f)))
          (i8x16.swizzle (local.get $hi2) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (if (v128.any_true (v128.or (local.get $a) (local.get $b)))
          (then
            (v128.store (i32.const 8976) (local.get $a))
            (v128.store (i32.const 8992) (local.get $b))
            (local.set $bits (i32.or (i8x16.bitmask (i8x16.ne (local.get $a) (v128.const i64x2 0 0)))
                                     (i32.shl (i8x16.bitmask (i8x16.ne (local.get $b) (v128.const i64x2 0 0))) (i32.const 16))))
            (loop $bit
              (local.set $pos (i32.add (local.get $i) (i32.ctz (local.get $bits))))
              (if (i32.ge_u (local.get $pos) (local.get $end)) (then (return (i32.const -1))))
              (local.set $m (i32.load8_u offset=8976 (i32.ctz (local.get $bits))))
              (local.set $k (i32.const 0))
              (block $tried
                (loop $each
                  (br_if $tried (i32.ge_u (local.get $k) (local.get $n)))
                  (if (i32.and (i32.shr_u (local.get $m) (i32.load8_u offset=8217 (i32.shl (local.get $k) (i32.const 5)))) (i32.const 1))
                    (then
                      (if (call $isWord (local.get $pos) (local.get $k) (local.get $end))
                        (then
                          (i32.store (i32.const 8804) (local.get $k))
                          (return (local.get $pos))))))
                  (local.set $k (i32.add (local.get $k) (i32.const 1)))
                  (br $each)))
              (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
              (br_if $bit (local.get $bits)))))
        (local.set $i (i32.add (local.get $i) (i32.const 32)))
        (br $round)))
    (i32.const -1))

  ;; wordLines(i, end, out, max): the lines of [i, end) (whole lines, i a line start, end just after a \n) that
  ;; hold a word of the word table (see anyOf), up to max of them, each stored at out as four i32: the line's
  ;; start, its \n, the number of \n in [i, its start), and the word found (its index). Returns how many. Where to
  ;; go on (end when all is done) is stored at 8808, and the number of \n in [i, there) at 8812. One call does what
  ;; anyOf(), lastIndexOf(), indexOf() and count() did for each line found.
  (func (export "wordLines") (param $i i32) (param $end i32) (param $out i32) (param $max i32) (result i32)
    (local $at i32) (local $counted i32) (local $p i32) (local $ls i32) (local $le i32) (local $n i32) (local $m i32)
    (local.set $at (local.get $i))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $n) (local.get $max)))
        (local.set $p (if (result i32) (i32.lt_u (local.get $i) (local.get $end))
          (then (call $anyOf (local.get $i) (local.get $end))) (else (i32.const -1))))
        (if (i32.lt_s (local.get $p) (i32.const 0))
          (then
            (local.set $i (local.get $end))
            (br $done)))
        ;; the line's start: back from the word to a \n, not before at
        (local.set $ls (local.get $p))
        (block $found
          (loop $back
            (br_if $found (i32.le_u (local.get $ls) (local.get $at)))
            (br_if $found (i32.eq (i32.load8_u offset=0 (i32.sub (local.get $ls) (i32.const 1))) (i32.const 10)))
            (local.set $ls (i32.sub (local.get $ls) (i32.const 1)))
            (br $back)))
        (local.set $counted (i32.add (local.get $counted) (call $count (local.get $at) (local.get $ls))))
        (local.set $at (local.get $ls))
        ;; its end: the next \n, 16 bytes at a time (a whole line ends before end; memory has room past it)
        (local.set $le (local.get $p))
        (block $eol
          (loop $fwd
            (local.set $m (i8x16.bitmask (i8x16.eq (v128.load (local.get $le)) (i8x16.splat (i32.const 10)))))
            (if (local.get $m)
              (then
                (local.set $le (i32.add (local.get $le) (i32.ctz (local.get $m))))
                (br $eol)))
            (local.set $le (i32.add (local.get $le) (i32.const 16)))
            (br $fwd)))
        (i32.store offset=0 (local.get $out) (local.get $ls))
        (i32.store offset=4 (local.get $out) (local.get $le))
        (i32.store offset=8 (local.get $out) (local.get $counted))
        (i32.store offset=12 (local.get $out) (i32.load (i32.const 8804)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $i (i32.add (local.get $le) (i32.const 1)))
        (br $next)))
    ;; the lines after the last one found, up to where to go on
    (local.set $counted (i32.add (local.get $counted) (call $count (local.get $at) (local.get $i))))
    (i32.store (i32.const 8808) (local.get $i))
    (i32.store (i32.const 8812) (local.get $counted))
    (local.get $n))
)
