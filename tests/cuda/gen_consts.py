p=0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
def limbs(x,n): return [(x>>(32*i))&0xffffffff for i in range(n)]
def fmt(name,x,n):
    l=limbs(x,n)
    return "#define %s { %s }"%(name, ", ".join("0x%08xu"%v for v in l))
out=[]
Rp=2**384%p; Rr=2**256%r
out.append(fmt("ZP_C_FP_P",p,12))
out.append(fmt("ZP_C_FP_ONE",Rp,12))
out.append(fmt("ZP_C_FP_RR",Rp*Rp%p,12))
out.append("#define ZP_C_FP_INV 0x%08xu"%((-pow(p,-1,2**32))%2**32))
out.append(fmt("ZP_C_FR_P",r,8))
out.append(fmt("ZP_C_FR_ONE",Rr,8))
out.append(fmt("ZP_C_FR_RR",Rr*Rr%r,8))
out.append("#define ZP_C_FR_INV 0x%08xu"%((-pow(r,-1,2**32))%2**32))
w32=0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f
assert pow(w32,2**32,r)==1 and pow(w32,2**31,r)!=1
t=(r-1)>>32; assert pow(5,t,r)==w32
w=w32
for k in range(32,0,-1):
    if k==12: assert w==0x110cebd0c8e9101be155cb4893f9e9ac565af17137d56fc0450d9f977ea8ee05
    if k==16: assert w==0x6709c6cd56aa725b0409ee987a02402c0caba63a29c01b06137b458acfc35f7a
    w=w*w%r
assert w==1
out.append(fmt("ZP_C_FR_OMEGA32",w32*Rr%r,8))
w7=pow(7,t,r); assert w7==0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b
out.append(fmt("ZP_C_FR_OMEGA32_ROOT7",w7*Rr%r,8))
out.append(fmt("ZP_C_FR_GEN7",7*Rr%r,8))
out.append(fmt("ZP_C_FR_GEN7_INV",pow(7,-1,r)*Rr%r,8))
g1x=0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
g1y=0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1
assert (g1y**2 - g1x**3 - 4)%p==0
out.append(fmt("ZP_C_G1_X",g1x*Rp%p,12))
out.append(fmt("ZP_C_G1_Y",g1y*Rp%p,12))
x0=0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8
x1=0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e
y0=0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801
y1=0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be
for n,v in (("X0",x0),("X1",x1),("Y0",y0),("Y1",y1)): out.append(fmt("ZP_C_G2_"+n,v*Rp%p,12))
# check G2 on curve y^2 = x^3 + 4(1+i), i^2=-1
def m2(a,b): return ((a[0]*b[0]-a[1]*b[1])%p, (a[0]*b[1]+a[1]*b[0])%p)
X=(x0,x1);Y=(y0,y1); lhs=m2(Y,Y); rhs=m2(m2(X,X),X); rhs=((rhs[0]+4)%p,(rhs[1]+4)%p); assert lhs==rhs
print("\n".join(out))
