/** Manifests the end-to-end tests apply with kubectl. */
export const MULTI_DOC = (ns: string, image = 'nginx:1.25', cmValue = 'one') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  namespace: ${ns}
  labels: { app: shop, tier: web }
spec:
  replicas: 2
  selector:
    matchLabels: { app: shop }
  template:
    metadata:
      labels: { app: shop }
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: shop
  namespace: ${ns}
  labels: { app: shop }
spec:
  selector: { app: shop }
  ports:
  - port: 80
    targetPort: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
  namespace: ${ns}
  labels: { app: shop }
data:
  mode: ${cmValue}
---
apiVersion: v1
kind: Secret
metadata:
  name: shop-secret
  namespace: ${ns}
  labels: { app: shop }
stringData:
  password: hunter2
---
apiVersion: v1
kind: Pod
metadata:
  name: shop-debug
  namespace: ${ns}
  labels: { app: shop, role: debug }
spec:
  containers:
  - name: sh
    image: busybox:1.36
    command: ["sleep", "3600"]
`;

export const INVALID_POD = (ns: string) => `apiVersion: v1
kind: Pod
metadata:
  name: Bad_Name
  namespace: ${ns}
spec:
  containers:
  - name: c
    image: busybox
`;
