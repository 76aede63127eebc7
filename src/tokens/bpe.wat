;; The token count of ASCII text, from its UTF-8 bytes: the pre-tokenizer of pretokenize.ts (the same decisions,
;; on bytes) and the byte-pair merge of tokenizer.ts (mergeScan, and the rank table lookup), so that counting
;; runs at native speed from the first piece instead of after the JIT warms up. It stops where JavaScript must
;; decide: a piece that depends on a byte outside ASCII (the pre-tokenizer's regex decides), a piece of 48 bytes or
;; more (tokenizer.ts merges it with a heap), and, when the bytes are not the end of the text, a piece that reaches
;; their end (the next window decides). src/tokens/bpe-wasm.ts embeds the assembled bytes
;; (test/tokens/bpe-wasm.test.ts assembles this file with wabt and checks they match).
;;
;; `bound` is token-bound.ts's upper bound of the tokens, on the same pieces: an instance given the short tokens
;; (`initShort`) instead of a rank table.
;;
;; Memory: 0 to 127 unused; 128 the ASCII kinds (pretokenize.ts KIND); 1024 the merge's part starts, 1280 the
;; ranks of adjacent pairs (i32, at most 48 each); 1536 and 2048 the bound's splits (i16, see $pieceBound); the
;; rank table from `init`'s addresses (tokenizer.ts RankTable's layout), or the short tokens from `initShort`'s,
;; and the text wherever the caller puts them (bpe-wasm.ts: from 4096).
(module
  (memory (export "memory") 1)
  (data (i32.const 128) "\00\00\00\00\00\00\00\00\00\08\18\08\08\18\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\00\00\00\00\00\00\00\20\04\04\04\04\04\04\04\04\04\04\00\00\00\00\00\00\00\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\00\00\00\00\00\00\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\02\00\00\00\00\00")
  ;; the vocabulary: 0 o200k_base, 1 cl100k_base; the rank table's arrays (tokenizer.ts RankTable) and its hash
  ;; table's mask
  (global $cl100k (mut i32) (i32.const 0))
  (global $offsets (mut i32) (i32.const 0))
  (global $table (mut i32) (i32.const 0))
  (global $mask (mut i32) (i32.const 0))
  (global $blob (mut i32) (i32.const 0))
  ;; the short tokens (token-bound.ts): their open-addressing table of keys, and its size in bits
  (global $short (mut i32) (i32.const 0))
  (global $shortBits (mut i32) (i32.const 0))
  ;; the bytes of the current call: where they end, and whether the text ends there too
  (global $end (mut i32) (i32.const 0))
  (global $final (mut i32) (i32.const 0))
  ;; where and why `count` stopped: 0 the end, 1 a byte outside ASCII, 2 the bytes' end (not the text's), 3 a long
  ;; piece (which ends at stopEnd)
  (global $stopAt (export "stopAt") (mut i32) (i32.const 0))
  (global $stopEnd (export "stopEnd") (mut i32) (i32.const 0))
  (global $why (export "why") (mut i32) (i32.const 0))

  (func (export "init") (param $cl100k i32) (param $offsets i32) (param $table i32) (param $mask i32) (param $blob i32)
    (global.set $cl100k (local.get $cl100k))
    (global.set $offsets (local.get $offsets))
    (global.set $table (local.get $table))
    (global.set $mask (local.get $mask))
    (global.set $blob (local.get $blob)))

  (func (export "initShort") (param $cl100k i32) (param $short i32) (param $bits i32)
    (global.set $cl100k (local.get $cl100k))
    (global.set $short (local.get $short))
    (global.set $shortBits (local.get $bits)))

  ;; bound(p, end): token-bound.ts's bound of the tokens of memory[p, end), the whole text; -1 if a piece depends
  ;; on a byte outside ASCII
  (func (export "bound") (param $p i32) (param $end i32) (result i32)
    (local $e i32) (local $total i32)
    (global.set $end (local.get $end))
    (global.set $final (i32.const 1))
    (loop $next
      (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (local.get $total))))
      (local.set $e (if (result i32) (global.get $cl100k) (then (call $cl100kPieceEnd (local.get $p))) (else (call $o200kPieceEnd (local.get $p)))))
      (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $total (i32.add (local.get $total) (call $pieceBound (local.get $p) (local.get $e))))
      (local.set $p (local.get $e))
      (br $next))
    (unreachable))

  ;; count(p, end, final): the tokens of the pieces of memory[p, end) up to where it stops (stopAt, why)
  (func (export "count") (param $p i32) (param $end i32) (param $final i32) (result i32)
    (local $e i32) (local $total i32)
    (global.set $end (local.get $end))
    (global.set $final (local.get $final))
    (loop $next
      (if (i32.ge_u (local.get $p) (local.get $end))
        (then
          (global.set $stopAt (local.get $end))
          (global.set $why (i32.const 0))
          (return (local.get $total))))
      (local.set $e (if (result i32) (global.get $cl100k) (then (call $cl100kPieceEnd (local.get $p))) (else (call $o200kPieceEnd (local.get $p)))))
      (if (i32.lt_s (local.get $e) (i32.const 0))
        (then
          (global.set $stopAt (local.get $p))
          (return (local.get $total))))
      (if (i32.ge_u (i32.sub (local.get $e) (local.get $p)) (i32.const 48))
        (then
          (global.set $stopAt (local.get $p))
          (global.set $stopEnd (local.get $e))
          (global.set $why (i32.const 3))
          (return (local.get $total))))
      (local.set $total (i32.add (local.get $total) (call $piece (local.get $p) (local.get $e))))
      (local.set $p (local.get $e))
      (br $next))
    (unreachable))

  ;; pretokenize.ts kindAt on bytes: the kind with bit 7 set, 0 past the end of the text, -1 (and why) when the
  ;; byte is outside ASCII or past the end of bytes that are not the end of the text
  (func $kind (param $i i32) (result i32)
    (local $b i32)
    (if (i32.ge_u (local.get $i) (global.get $end))
      (then
        (if (global.get $final) (then (return (i32.const 0))))
        (global.set $why (i32.const 2))
        (return (i32.const -1))))
    (local.set $b (i32.load8_u (local.get $i)))
    (if (i32.ge_u (local.get $b) (i32.const 0x80))
      (then
        (global.set $why (i32.const 1))
        (return (i32.const -1))))
    (i32.or (i32.load8_u offset=128 (local.get $b)) (i32.const 128)))

  ;; whether the text goes on past i (1), ends there (0), or that is not known yet (-1, why 2)
  (func $more (param $i i32) (result i32)
    (if (i32.lt_u (local.get $i) (global.get $end)) (then (return (i32.const 1))))
    (if (global.get $final) (then (return (i32.const 0))))
    (global.set $why (i32.const 2))
    (i32.const -1))

  ;; the end of the run of kinds with a bit of mask from i, or -1
  (func $run (param $i i32) (param $mask i32) (result i32)
    (local $k i32)
    (loop $next
      (local.set $k (call $kind (local.get $i)))
      (if (i32.lt_s (local.get $k) (i32.const 0)) (then (return (i32.const -1))))
      (if (i32.eqz (i32.and (local.get $k) (local.get $mask))) (then (return (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next))
    (unreachable))

  ;; the end of a contraction ('s 't 'm 'd 're 've 'll, either case) at i, 0 if none, -1 if not known yet
  (func $contraction (param $i i32) (result i32)
    (local $m i32) (local $a i32)
    (local.set $m (call $more (local.get $i)))
    (if (i32.le_s (local.get $m) (i32.const 0)) (then (return (local.get $m))))
    (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x27)) (then (return (i32.const 0))))
    (local.set $m (call $more (i32.add (local.get $i) (i32.const 1))))
    (if (i32.le_s (local.get $m) (i32.const 0)) (then (return (local.get $m))))
    (local.set $a (i32.or (i32.load8_u offset=1 (local.get $i)) (i32.const 0x20)))
    (if (i32.or (i32.or (i32.eq (local.get $a) (i32.const 0x73)) (i32.eq (local.get $a) (i32.const 0x74)))
                (i32.or (i32.eq (local.get $a) (i32.const 0x6d)) (i32.eq (local.get $a) (i32.const 0x64))))
      (then (return (i32.add (local.get $i) (i32.const 2)))))
    (if (i32.or (i32.eq (local.get $a) (i32.const 0x72)) (i32.eq (local.get $a) (i32.const 0x76)))
      (then (local.set $a (i32.const 0x65)))
      (else
        (if (i32.ne (local.get $a) (i32.const 0x6c)) (then (return (i32.const 0))))))
    ;; 're 've: an e must follow; 'll: an l
    (local.set $m (call $more (i32.add (local.get $i) (i32.const 2))))
    (if (i32.le_s (local.get $m) (i32.const 0)) (then (return (local.get $m))))
    (if (result i32) (i32.eq (i32.or (i32.load8_u offset=2 (local.get $i)) (i32.const 0x20)) (local.get $a))
      (then (i32.add (local.get $i) (i32.const 3)))
      (else (i32.const 0))))

  ;; \p{N}{1,3} from i, where there is a digit
  (func $digits (param $i i32) (result i32)
    (local $e i32) (local $k i32)
    (local.set $e (i32.add (local.get $i) (i32.const 1)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $e) (i32.add (local.get $i) (i32.const 3))))
        (local.set $k (call $kind (local.get $e)))
        (if (i32.lt_s (local.get $k) (i32.const 0)) (then (return (i32.const -1))))
        (br_if $done (i32.eqz (i32.and (local.get $k) (i32.const 4))))
        (local.set $e (i32.add (local.get $e) (i32.const 1)))
        (br $next)))
    (local.get $e))

  ;; the whitespace alternatives, from i where there is whitespace
  (func $spaces (param $i i32) (result i32)
    (local $w i32) (local $p i32)
    (local.set $w (call $run (local.get $i) (i32.const 8)))
    (if (i32.lt_s (local.get $w) (i32.const 0)) (then (return (i32.const -1))))
    ;; \s*[\r\n]+ : up to the last \r or \n of the run
    (local.set $p (local.get $w))
    (block $none
      (loop $back
        (br_if $none (i32.le_u (local.get $p) (local.get $i)))
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (if (i32.and (i32.load8_u offset=128 (i32.load8_u (local.get $p))) (i32.const 16))
          (then (return (i32.add (local.get $p) (i32.const 1)))))
        (br $back)))
    ;; \s+(?!\S) : the whole run at the end of the text (run stopped there), else all but its last character
    (if (i32.ge_u (local.get $w) (global.get $end)) (then (return (local.get $w))))
    (if (i32.ge_u (i32.sub (local.get $w) (local.get $i)) (i32.const 2)) (then (return (i32.sub (local.get $w) (i32.const 1)))))
    (local.get $w))

  ;; ` ?[^\s\p{L}\p{N}]+[tail]*`, else the whitespace alternatives; k is the kind at i
  (func $punctOrSpaces (param $i i32) (param $k i32) (param $tail i32) (result i32)
    (local $p i32) (local $first i32) (local $q i32) (local $e i32) (local $m i32) (local $b i32)
    (local.set $p (local.get $i))
    (local.set $first (local.get $k))
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x20))
      (then
        (local.set $q (call $kind (i32.add (local.get $i) (i32.const 1))))
        (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
        (if (i32.and (i32.ne (local.get $q) (i32.const 0)) (i32.eqz (i32.and (local.get $q) (i32.const 15))))
          (then
            (local.set $p (i32.add (local.get $i) (i32.const 1)))
            (local.set $first (local.get $q))))))
    (if (i32.eqz (i32.and (local.get $first) (i32.const 15)))
      (then
        (local.set $e (i32.add (local.get $p) (i32.const 1)))
        (block $punctEnd
          (loop $punct
            (local.set $q (call $kind (local.get $e)))
            (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
            (br_if $punctEnd (i32.eqz (local.get $q)))
            (br_if $punctEnd (i32.and (local.get $q) (i32.const 15)))
            (local.set $e (i32.add (local.get $e) (i32.const 1)))
            (br $punct)))
        ;; the tail characters are ASCII: a byte outside it ends the piece
        (loop $tailNext
          (local.set $m (call $more (local.get $e)))
          (if (i32.le_s (local.get $m) (i32.const 0))
            (then (return (if (result i32) (i32.eqz (local.get $m)) (then (local.get $e)) (else (i32.const -1))))))
          (local.set $b (i32.load8_u (local.get $e)))
          (if (i32.ge_u (local.get $b) (i32.const 0x80)) (then (return (local.get $e))))
          (if (i32.eqz (i32.and (i32.load8_u offset=128 (local.get $b)) (local.get $tail))) (then (return (local.get $e))))
          (local.set $e (i32.add (local.get $e) (i32.const 1)))
          (br $tailNext))))
    (if (i32.and (local.get $k) (i32.const 8)) (then (return (call $spaces (local.get $i)))))
    (global.set $why (i32.const 1))
    (i32.const -1))

  ;; pretokenize.ts o200kPieceEnd: the end of the piece at i, or -1
  (func $o200kPieceEnd (param $i i32) (result i32)
    (local $k i32) (local $j i32) (local $u i32) (local $l i32) (local $c i32)
    (local.set $k (call $kind (local.get $i)))
    (if (i32.lt_s (local.get $k) (i32.const 0)) (then (return (i32.const -1))))
    ;; letters, maybe after one prefix character (not a letter, digit, \r or \n)
    (local.set $j (i32.add (local.get $i) (i32.eqz (i32.and (local.get $k) (i32.const 23)))))
    (local.set $u (call $run (local.get $j) (i32.const 1)))
    (if (i32.lt_s (local.get $u) (i32.const 0)) (then (return (i32.const -1))))
    (local.set $l (call $run (local.get $u) (i32.const 2)))
    (if (i32.lt_s (local.get $l) (i32.const 0)) (then (return (i32.const -1))))
    (if (i32.or (i32.gt_u (local.get $l) (local.get $u)) (i32.gt_u (local.get $u) (local.get $j)))
      (then
        (local.set $c (call $contraction (local.get $l)))
        (if (i32.lt_s (local.get $c) (i32.const 0)) (then (return (i32.const -1))))
        (return (if (result i32) (local.get $c) (then (local.get $c)) (else (local.get $l))))))
    (if (i32.and (local.get $k) (i32.const 4)) (then (return (call $digits (local.get $i)))))
    (call $punctOrSpaces (local.get $i) (local.get $k) (i32.const 48)))

  ;; pretokenize.ts cl100kPieceEnd: the end of the piece at i, or -1
  (func $cl100kPieceEnd (param $i i32) (result i32)
    (local $k i32) (local $j i32) (local $l i32) (local $c i32)
    (local.set $k (call $kind (local.get $i)))
    (if (i32.lt_s (local.get $k) (i32.const 0)) (then (return (i32.const -1))))
    (local.set $c (call $contraction (local.get $i)))
    (if (i32.ne (local.get $c) (i32.const 0)) (then (return (local.get $c))))
    (local.set $j (i32.add (local.get $i) (i32.eqz (i32.and (local.get $k) (i32.const 23)))))
    (local.set $l (call $run (local.get $j) (i32.const 3)))
    (if (i32.lt_s (local.get $l) (i32.const 0)) (then (return (i32.const -1))))
    (if (i32.gt_u (local.get $l) (local.get $j)) (then (return (local.get $l))))
    (if (i32.and (local.get $k) (i32.const 4)) (then (return (call $digits (local.get $i)))))
    (call $punctOrSpaces (local.get $i) (local.get $k) (i32.const 16)))

  ;; the rank of the bytes [s, e), or -1 (as unsigned, above every rank) if they are not a token
  (func $rank (param $s i32) (param $e i32) (result i32)
    (local $h i32) (local $p i32) (local $len i32) (local $slot i32) (local $entry i32) (local $t i32) (local $off i32) (local $q i32)
    (local.set $h (i32.const 0x811c9dc5))
    (local.set $p (local.get $s))
    (block $hashed
      (loop $byte
        (br_if $hashed (i32.ge_u (local.get $p) (local.get $e)))
        (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (local.get $p))) (i32.const 0x01000193)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $byte)))
    (local.set $len (i32.sub (local.get $e) (local.get $s)))
    (local.set $slot (i32.and (local.get $h) (global.get $mask)))
    (loop $probe
      (local.set $entry (i32.load (i32.add (global.get $table) (i32.shl (local.get $slot) (i32.const 2)))))
      (if (i32.eqz (local.get $entry)) (then (return (i32.const -1))))
      (local.set $t (i32.shl (i32.sub (local.get $entry) (i32.const 1)) (i32.const 2)))
      (local.set $off (i32.load (i32.add (global.get $offsets) (local.get $t))))
      (if (i32.eq (i32.sub (i32.load offset=4 (i32.add (global.get $offsets) (local.get $t))) (local.get $off)) (local.get $len))
        (then
          (local.set $off (i32.add (global.get $blob) (local.get $off)))
          (local.set $q (i32.const 0))
          (block $differ
            (loop $cmp
              (if (i32.ge_u (local.get $q) (local.get $len))
                (then (return (i32.shr_u (local.get $t) (i32.const 2)))))
              (br_if $differ (i32.ne (i32.load8_u (i32.add (local.get $off) (local.get $q))) (i32.load8_u (i32.add (local.get $s) (local.get $q)))))
              (local.set $q (i32.add (local.get $q) (i32.const 1)))
              (br $cmp)))))
      (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1)) (global.get $mask)))
      (br $probe))
    (unreachable))

  ;; the tokens of the piece [s, e), shorter than 48 bytes: tokenizer.ts countPiece and mergeScan
  (func $piece (param $s i32) (param $e i32) (result i32)
    (local $len i32) (local $parts i32) (local $i i32) (local $best i32) (local $bestRank i32) (local $r i32)
    (local.set $len (i32.sub (local.get $e) (local.get $s)))
    (if (i32.le_u (local.get $len) (i32.const 1)) (then (return (local.get $len))))
    (if (i32.ne (call $rank (local.get $s) (local.get $e)) (i32.const -1)) (then (return (i32.const 1))))
    ;; part i spans starts[i] to starts[i+1]; pair i is parts i and i+1
    (local.set $i (i32.const 0))
    (loop $init
      (i32.store offset=1024 (i32.shl (local.get $i) (i32.const 2)) (i32.add (local.get $s) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $init (i32.le_u (local.get $i) (local.get $len))))
    (local.set $parts (local.get $len))
    (local.set $i (i32.const 0))
    (loop $pairs
      (i32.store offset=1280 (i32.shl (local.get $i) (i32.const 2))
        (call $rank (i32.add (local.get $s) (local.get $i)) (i32.add (local.get $s) (i32.add (local.get $i) (i32.const 2)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $pairs (i32.lt_u (local.get $i) (i32.sub (local.get $parts) (i32.const 1)))))
    (block $merged
      (loop $round
        (br_if $merged (i32.le_u (local.get $parts) (i32.const 1)))
        ;; the lowest rank, leftmost on ties
        (local.set $best (i32.const -1))
        (local.set $bestRank (i32.const -1))
        (local.set $i (i32.const 0))
        (block $found
          (loop $scan
            (br_if $found (i32.ge_u (local.get $i) (i32.sub (local.get $parts) (i32.const 1))))
            (local.set $r (i32.load offset=1280 (i32.shl (local.get $i) (i32.const 2))))
            (if (i32.lt_u (local.get $r) (local.get $bestRank))
              (then
                (local.set $bestRank (local.get $r))
                (local.set $best (local.get $i))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $scan)))
        (br_if $merged (i32.lt_s (local.get $best) (i32.const 0)))
        ;; merge part best with part best+1
        (local.set $i (i32.add (local.get $best) (i32.const 1)))
        (block $shifted
          (loop $shift
            (br_if $shifted (i32.ge_u (local.get $i) (local.get $parts)))
            (i32.store offset=1024 (i32.shl (local.get $i) (i32.const 2)) (i32.load offset=1028 (i32.shl (local.get $i) (i32.const 2))))
            (if (i32.lt_u (local.get $i) (i32.sub (local.get $parts) (i32.const 1)))
              (then (i32.store offset=1280 (i32.shl (local.get $i) (i32.const 2)) (i32.load offset=1284 (i32.shl (local.get $i) (i32.const 2))))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $shift)))
        (local.set $parts (i32.sub (local.get $parts) (i32.const 1)))
        (i32.store offset=1280 (i32.shl (local.get $best) (i32.const 2))
          (if (result i32) (i32.lt_u (i32.add (local.get $best) (i32.const 1)) (local.get $parts))
            (then (call $rank (i32.load offset=1024 (i32.shl (local.get $best) (i32.const 2))) (i32.load offset=1032 (i32.shl (local.get $best) (i32.const 2)))))
            (else (i32.const -1))))
        (if (i32.gt_s (local.get $best) (i32.const 0))
          (then
            (i32.store offset=1276 (i32.shl (local.get $best) (i32.const 2))
              (call $rank (i32.load offset=1020 (i32.shl (local.get $best) (i32.const 2))) (i32.load offset=1028 (i32.shl (local.get $best) (i32.const 2)))))))
        (br $round)))
    (local.get $parts))

  ;; whether the bytes [s, e) (2 to 4 ASCII bytes) are a short token: token-bound.ts ShortTokens.has
  (func $has (param $s i32) (param $e i32) (result i32)
    (local $key i32) (local $p i32) (local $slot i32) (local $k i32)
    (local.set $key (i32.sub (local.get $e) (local.get $s)))
    (local.set $p (local.get $s))
    (loop $byte
      (local.set $key (i32.or (i32.shl (local.get $key) (i32.const 7)) (i32.load8_u (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br_if $byte (i32.lt_u (local.get $p) (local.get $e))))
    (local.set $slot (i32.shr_u (i32.mul (local.get $key) (i32.const 0x9e3779b1)) (i32.sub (i32.const 32) (global.get $shortBits))))
    (loop $probe
      (local.set $k (i32.load (i32.add (global.get $short) (i32.shl (local.get $slot) (i32.const 2)))))
      (if (i32.eq (local.get $k) (local.get $key)) (then (return (i32.const 1))))
      (if (i32.eqz (local.get $k)) (then (return (i32.const 0))))
      (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1))
        (i32.sub (i32.shl (i32.const 1) (global.get $shortBits)) (i32.const 1))))
      (br $probe))
    (unreachable))

  ;; the most parts of a piece's first i bytes that end in a part of 5 to 9 bytes (-1: none); best[j] at 1536 + 2j
  (func $longBefore (param $i i32) (result i32)
    (local $l i32) (local $b i32) (local $v i32)
    (local.set $v (i32.const -1))
    (local.set $l (i32.const 5))
    (block $done
      (loop $next
        (br_if $done (i32.or (i32.gt_u (local.get $l) (i32.const 9)) (i32.gt_u (local.get $l) (local.get $i))))
        (local.set $b (i32.load16_s offset=1536 (i32.shl (i32.sub (local.get $i) (local.get $l)) (i32.const 1))))
        (if (i32.and (i32.ne (local.get $b) (i32.const -1)) (i32.gt_s (i32.add (local.get $b) (i32.const 1)) (local.get $v)))
          (then (local.set $v (i32.add (local.get $b) (i32.const 1)))))
        (local.set $l (i32.add (local.get $l) (i32.const 1)))
        (br $next)))
    (local.get $v))

  ;; token-bound.ts's bound of the piece [s, e): the most parts of a split in which a part of at most 4 bytes is a
  ;; short token and two neighbours of at most 4 bytes together do not join into one (parts of 5 to 9 bytes are not
  ;; checked; longer ones are never needed). A piece of more than 240 bytes is bounded by its length. For the
  ;; first i bytes: best[i] (i16 at 1536 + 2i), the most parts; last[i][l] (i16 at 2048 + 8i + 2(l - 1)), the most
  ;; with a last part of l <= 4 bytes; -1 for none. The work is split in three small functions ($position,
  ;; $lastPart): V8 compiles a hot function again with TurboFan, on another thread, and node waits for that before it
  ;; exits; one large function took 9 to 20 ms to compile, after a bound of 1 KB.
  (func $pieceBound (param $s i32) (param $e i32) (result i32)
    (local $n i32) (local $i i32)
    (local.set $n (i32.sub (local.get $e) (local.get $s)))
    (if (i32.le_u (local.get $n) (i32.const 1)) (then (return (local.get $n))))
    ;; a piece that is a token is one (tiktoken's rule)
    (if (i32.le_u (local.get $n) (i32.const 4))
      (then (if (call $has (local.get $s) (local.get $e)) (then (return (i32.const 1))))))
    (if (i32.gt_u (local.get $n) (i32.const 240)) (then (return (local.get $n))))
    (i32.store16 offset=1536 (i32.const 0) (i32.const 0))
    (local.set $i (i32.const 1))
    (loop $position
      (call $position (local.get $s) (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $position (i32.le_u (local.get $i) (local.get $n))))
    (i32.load16_s offset=1536 (i32.shl (local.get $n) (i32.const 1))))

  ;; best[i] and last[i][1..4] of the piece at s, from those before i
  (func $position (param $s i32) (param $i i32)
    (local $l i32) (local $v i32) (local $top i32) (local $t2 i32) (local $t3 i32) (local $t4 i32)
    ;; whether the 2, 3, 4 bytes before i are a token
    (if (i32.ge_u (local.get $i) (i32.const 2))
      (then (local.set $t2 (call $has (i32.add (local.get $s) (i32.sub (local.get $i) (i32.const 2))) (i32.add (local.get $s) (local.get $i))))))
    (if (i32.ge_u (local.get $i) (i32.const 3))
      (then (local.set $t3 (call $has (i32.add (local.get $s) (i32.sub (local.get $i) (i32.const 3))) (i32.add (local.get $s) (local.get $i))))))
    (if (i32.ge_u (local.get $i) (i32.const 4))
      (then (local.set $t4 (call $has (i32.add (local.get $s) (i32.sub (local.get $i) (i32.const 4))) (i32.add (local.get $s) (local.get $i))))))
    (local.set $top (call $longBefore (local.get $i)))
    (local.set $l (i32.const 1))
    (loop $last
      (local.set $v (call $lastPart (local.get $i) (local.get $l) (local.get $t2) (local.get $t3) (local.get $t4)))
      (i32.store16 offset=2048 (i32.add (i32.shl (local.get $i) (i32.const 3)) (i32.shl (i32.sub (local.get $l) (i32.const 1)) (i32.const 1))) (local.get $v))
      (if (i32.gt_s (local.get $v) (local.get $top)) (then (local.set $top (local.get $v))))
      (local.set $l (i32.add (local.get $l) (i32.const 1)))
      (br_if $last (i32.le_u (local.get $l) (i32.const 4))))
    (i32.store16 offset=1536 (i32.shl (local.get $i) (i32.const 1)) (local.get $top)))

  ;; last[i][l]: the most parts of the first i bytes that end in a part of l <= 4 bytes; t2, t3, t4: whether the 2, 3,
  ;; 4 bytes before i are a token
  (func $lastPart (param $i i32) (param $l i32) (param $t2 i32) (param $t3 i32) (param $t4 i32) (result i32)
    (local $a i32) (local $before i32) (local $pl i32) (local $p i32) (local $k i32)
    (local.set $a (i32.sub (local.get $i) (local.get $l)))
    (if (i32.lt_s (local.get $a) (i32.const 0)) (then (return (i32.const -1))))
    ;; the l bytes before i are a token (a single byte always is)
    (if (i32.eqz (select (i32.const 1)
          (select (local.get $t2) (select (local.get $t3) (local.get $t4) (i32.eq (local.get $l) (i32.const 3))) (i32.eq (local.get $l) (i32.const 2)))
          (i32.eq (local.get $l) (i32.const 1))))
      (then (return (i32.const -1))))
    (if (i32.eqz (local.get $a)) (then (return (i32.const 1))))
    ;; after a part of pl bytes: any, unless the two are at most 4 bytes and join into a token
    (local.set $before (call $longBefore (local.get $a)))
    (local.set $pl (i32.const 1))
    (block $parts
      (loop $part
        (br_if $parts (i32.or (i32.gt_u (local.get $pl) (i32.const 4)) (i32.gt_u (local.get $pl) (local.get $a))))
        (local.set $p (i32.load16_s offset=2048 (i32.add (i32.shl (local.get $a) (i32.const 3)) (i32.shl (i32.sub (local.get $pl) (i32.const 1)) (i32.const 1)))))
        (local.set $k (i32.add (local.get $pl) (local.get $l)))
        (if (i32.gt_s (local.get $p) (local.get $before))
          (then
            (if (i32.eqz (i32.and (i32.le_u (local.get $k) (i32.const 4))
                    (select (local.get $t2) (select (local.get $t3) (local.get $t4) (i32.eq (local.get $k) (i32.const 3))) (i32.eq (local.get $k) (i32.const 2)))))
              (then (local.set $before (local.get $p))))))
        (local.set $pl (i32.add (local.get $pl) (i32.const 1)))
        (br $part)))
    (if (result i32) (i32.eq (local.get $before) (i32.const -1)) (then (i32.const -1)) (else (i32.add (local.get $before) (i32.const 1)))))
)
