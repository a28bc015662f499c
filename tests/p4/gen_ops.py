"""Differential test generator for P4 operators: a random program of 40 expressions over
inputs of widths 1..200 (bit<W>, int<W> through casts), packets with edge values, and the
expected outputs computed by this Python model (not by the engine). Writes d.p4/d.stf in the
working directory and runs build/ddlsim on them; exit 1 on a mismatch.
    python3 tests/p4/gen_ops.py SEED    (tests/p4/ops_random.* were made with SEED 5)"""
import random, subprocess, sys, os
random.seed(int(sys.argv[1]) if len(sys.argv)>1 else 1)
M=lambda w:(1<<w)-1
def sx(v,w):
    v&=M(w)
    return v-(1<<w) if v>>(w-1) else v
widths=[1,3,5,8,13,16,31,32,33,48,63,64,65,96,127,128,200]
exprs=[]  # (p4 expr, width, python fn over (a,b) values dict)
ins=[]
N=6
for i in range(N):
    w=random.choice(widths)
    ins.append(('i%d'%i,w))
def pick(): return random.choice(ins)
ops=[]
for k in range(40):
    (an,aw)=pick()
    # pick b with same width
    same=[x for x in ins if x[1]==aw]
    (bn,bw)=random.choice(same) if same else (an,aw)
    kind=random.choice(['add','sub','mul','and','or','xor','not','shl','shr','eq','lt','ge','sadd','ssub','cat','slice','cast','neg','sgt','sshr','scast','div','mod','ssadd','sssub','cond','ssub2','shlv','shrv','sshrv','logic'])
    A='h.i.'+an; B='h.i.'+bn
    if kind=='add': ops.append((f'{A} + {B}',aw,lambda v,an=an,bn=bn,aw=aw:(v[an]+v[bn])&M(aw)))
    elif kind=='sub': ops.append((f'{A} - {B}',aw,lambda v,an=an,bn=bn,aw=aw:(v[an]-v[bn])&M(aw)))
    elif kind=='mul': ops.append((f'{A} * {B}',aw,lambda v,an=an,bn=bn,aw=aw:(v[an]*v[bn])&M(aw)))
    elif kind=='and': ops.append((f'{A} & {B}',aw,lambda v,an=an,bn=bn:(v[an]&v[bn])))
    elif kind=='or': ops.append((f'{A} | {B}',aw,lambda v,an=an,bn=bn:(v[an]|v[bn])))
    elif kind=='xor': ops.append((f'{A} ^ {B}',aw,lambda v,an=an,bn=bn:(v[an]^v[bn])))
    elif kind=='not': ops.append((f'~{A}',aw,lambda v,an=an,aw=aw:(~v[an])&M(aw)))
    elif kind=='neg': ops.append((f'-{A}',aw,lambda v,an=an,aw=aw:(-v[an])&M(aw)))
    elif kind=='shl':
        n=random.randint(0,aw+2); ops.append((f'{A} << {n}',aw,lambda v,an=an,aw=aw,n=n:(v[an]<<n)&M(aw)))
    elif kind=='shr':
        n=random.randint(0,aw+2); ops.append((f'{A} >> {n}',aw,lambda v,an=an,n=n:(v[an]>>n)))
    elif kind=='eq': ops.append((f'(bit<1>)({A} == {B})',1,lambda v,an=an,bn=bn:int(v[an]==v[bn])))
    elif kind=='lt': ops.append((f'(bit<1>)({A} < {B})',1,lambda v,an=an,bn=bn:int(v[an]<v[bn])))
    elif kind=='ge': ops.append((f'(bit<1>)({A} >= {B})',1,lambda v,an=an,bn=bn:int(v[an]>=v[bn])))
    elif kind=='sadd': ops.append((f'{A} |+| {B}',aw,lambda v,an=an,bn=bn,aw=aw:min(v[an]+v[bn],M(aw))))
    elif kind=='ssub': ops.append((f'{A} |-| {B}',aw,lambda v,an=an,bn=bn:max(v[an]-v[bn],0)))
    elif kind=='cat':
        (cn,cw)=pick()
        if aw+cw<=512: ops.append((f'{A} ++ h.i.{cn}',aw+cw,lambda v,an=an,cn=cn,cw=cw:(v[an]<<cw)|v[cn]))
    elif kind=='slice':
        lo=random.randint(0,aw-1); hi=random.randint(lo,aw-1)
        ops.append((f'{A}[{hi}:{lo}]',hi-lo+1,lambda v,an=an,hi=hi,lo=lo:(v[an]>>lo)&M(hi-lo+1)))
    elif kind=='cast':
        tw=random.choice(widths); ops.append((f'(bit<{tw}>){A}',tw,lambda v,an=an,tw=tw:v[an]&M(tw)))
    elif kind in ('shlv','shrv','sshrv'):
        narrow=[x for x in ins if x[1]<=8]
        if narrow and aw>1:
            (sn,sw)=random.choice(narrow)
            S='h.i.'+sn
            if kind=='shlv':
                ops.append((f'{A} << {S}',aw,lambda v,an=an,sn=sn,aw=aw:(v[an]<<v[sn])&M(aw)))
            elif kind=='shrv':
                ops.append((f'{A} >> {S}',aw,lambda v,an=an,sn=sn:v[an]>>v[sn]))
            else:
                ops.append((f'(bit<{aw}>)((int<{aw}>){A} >> {S})',aw,lambda v,an=an,sn=sn,aw=aw:(sx(v[an],aw)>>v[sn])&M(aw)))
    elif kind=='logic':
        ops.append((f'(bit<1>)(({A} != {B} && !({A} < {B})) || {A} == 0)',1,lambda v,an=an,bn=bn:int((v[an]!=v[bn] and not v[an]<v[bn]) or v[an]==0)))
    elif kind=='div' and aw<=64:
        ops.append((f'{A} / ({B} | 1)',aw,lambda v,an=an,bn=bn:v[an]//(v[bn]|1)))
    elif kind=='mod' and aw<=64:
        ops.append((f'{A} % ({B} | 1)',aw,lambda v,an=an,bn=bn:v[an]%(v[bn]|1)))
    elif kind=='ssadd' and aw>1:
        ops.append((f'(bit<{aw}>)((int<{aw}>){A} |+| (int<{aw}>){B})',aw,lambda v,an=an,bn=bn,aw=aw:max(-(1<<(aw-1)),min((1<<(aw-1))-1,sx(v[an],aw)+sx(v[bn],aw)))&M(aw)))
    elif kind=='sssub' and aw>1:
        ops.append((f'(bit<{aw}>)((int<{aw}>){A} |-| (int<{aw}>){B})',aw,lambda v,an=an,bn=bn,aw=aw:max(-(1<<(aw-1)),min((1<<(aw-1))-1,sx(v[an],aw)-sx(v[bn],aw)))&M(aw)))
    elif kind=='cond':
        ops.append((f'({A} > {B} ? {A} : {B})',aw,lambda v,an=an,bn=bn:max(v[an],v[bn])))
    elif kind=='ssub2':
        ops.append((f'{A} - 1 + {B}',aw,lambda v,an=an,bn=bn,aw=aw:(v[an]-1+v[bn])&M(aw)))
    elif kind=='sgt' and aw>1:
        ops.append((f'(bit<1>)((int<{aw}>){A} > (int<{aw}>){B})',1,lambda v,an=an,bn=bn,aw=aw:int(sx(v[an],aw)>sx(v[bn],aw))))
    elif kind=='sshr' and aw>1:
        n=random.randint(0,aw+2); ops.append((f'(bit<{aw}>)((int<{aw}>){A} >> {n})',aw,lambda v,an=an,aw=aw,n=n:(sx(v[an],aw)>>n)&M(aw)))
    elif kind=='scast' and aw>1:
        tw=random.choice([x for x in widths if x>1]); ops.append((f'(bit<{tw}>)((int<{tw}>)(int<{aw}>){A})',tw,lambda v,an=an,aw=aw,tw=tw:sx(v[an],aw)&M(tw)))
# header widths must be multiple of 8: pad
def hdr(name, fields):
    tot=sum(w for _,w in fields)
    pad=(-tot)%8
    f="".join(f"    bit<{w}> {n};\n" for n,w in fields)
    if pad: f+=f"    bit<{pad}> pad_;\n"
    return f"header {name} {{\n{f}}}\n", tot+pad
outs=[(f'o{i}',w) for i,(e,w,fn) in enumerate(ops)]
hi,inw=hdr('in_t',ins); ho,outw=hdr('out_t',outs)
body="".join(f"        h.o.o{i} = {e};\n" for i,(e,w,fn) in enumerate(ops))
prog=f'''#include <core.p4>
#include <v1model.p4>
{hi}{ho}
struct headers {{ in_t i; out_t o; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(h.i); transition accept; }}
}}
control VC(inout headers h, inout meta_t m) {{ apply {{ }} }}
control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {{
    apply {{
        h.o.setValid();
{body}        sm.egress_spec = 1;
    }}
}}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers h, inout meta_t m) {{ apply {{ }} }}
control D(packet_out pkt, in headers h) {{ apply {{ pkt.emit(h.i); pkt.emit(h.o); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
'''
def pack(fields, vals, total):
    x=0; bits=0
    for (n,w) in fields:
        x=(x<<w)|(vals[n]&M(w)); bits+=w
    x<<= (total-bits)
    return x.to_bytes(total//8,'big')
lines=[]
for t in range(8):
    v={}
    for n,w in ins:
        v[n]=random.choice([0,1,M(w),M(w)-1,1<<(w-1),random.getrandbits(w)])
    ib=pack(ins,v,inw)
    ov={f'o{i}':fn(v) for i,(e,w,fn) in enumerate(ops)}
    ob=pack(outs,ov,outw)
    lines.append("packet 0 "+ib.hex())
    lines.append("expect 1 "+(ib+ob).hex()+" $")
open('d.p4','w').write(prog); open('d.stf','w').write("\n".join(lines)+"\n")
root=os.path.join(os.path.dirname(os.path.abspath(__file__)),'..','..')
r=subprocess.run([os.environ.get('DDLSIM', os.path.join(root,'build','ddlsim')),'p4','test','d.p4','d.stf'],capture_output=True,text=True,
                 env=dict(os.environ, DDLSIM_P4_INCLUDE=os.path.join(root,'p4','include')))
if r.returncode!=0:
    print(r.stdout[-3000:], r.stderr[-3000:])
    sys.exit(1)
