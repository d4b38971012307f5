// SPDX-License-Identifier: Apache-2.0

package assets_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// k8sObject is what the test reads of a Kubernetes manifest: the fields
// of a Namespace, DaemonSet, Service and ServiceMonitor that matter.
type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace"`
		Labels    map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		// DaemonSet
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				HostNetwork bool   `yaml:"hostNetwork"`
				DNSPolicy   string `yaml:"dnsPolicy"`
				Tolerations []struct {
					Operator string `yaml:"operator"`
					Key      string `yaml:"key"`
				} `yaml:"tolerations"`
				Containers []k8sContainer `yaml:"containers"`
				Volumes    []struct {
					Name     string `yaml:"name"`
					HostPath struct {
						Path string `yaml:"path"`
					} `yaml:"hostPath"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`

		// Service: selector is a plain map there, read separately.
		ClusterIP string `yaml:"clusterIP"`
		Ports     []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort any    `yaml:"targetPort"`
		} `yaml:"ports"`

		// ServiceMonitor
		NamespaceSelector struct {
			MatchNames []string `yaml:"matchNames"`
		} `yaml:"namespaceSelector"`
		Endpoints []struct {
			Port string `yaml:"port"`
			Path string `yaml:"path"`
		} `yaml:"endpoints"`
	} `yaml:"spec"`
}

// k8sContainer is a DaemonSet's container.
type k8sContainer struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		RunAsUser                *int  `yaml:"runAsUser"`
		RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		Privileged               *bool `yaml:"privileged"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
			Add  []string `yaml:"add"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
	ReadinessProbe *k8sProbe `yaml:"readinessProbe"`
	LivenessProbe  *k8sProbe `yaml:"livenessProbe"`
}

// k8sProbe is a container's HTTP probe.
type k8sProbe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"`
	} `yaml:"httpGet"`
}

// readManifests decodes every YAML document of a file, each into a
// k8sObject and into a generic map (where the Service's selector, a
// plain map, is read).
func readManifests(t *testing.T, path string) ([]k8sObject, []map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var objs []k8sObject
	var raws []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: document %d: %v", path, len(objs)+1, err)
		}
		var o k8sObject
		var raw map[string]any
		if err := node.Decode(&o); err != nil {
			t.Fatalf("%s: document %d: %v", path, len(objs)+1, err)
		}
		if err := node.Decode(&raw); err != nil {
			t.Fatalf("%s: document %d: %v", path, len(objs)+1, err)
		}
		objs = append(objs, o)
		raws = append(raws, raw)
	}
	return objs, raws
}

// matches reports whether labels carry every selector key with its value.
func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// quantity returns a Kubernetes quantity of bytes (Mi, Gi) or CPU (m) as
// a number of bytes or millicores.
func quantity(t *testing.T, s string) int64 {
	t.Helper()
	for suffix, mult := range map[string]int64{"Mi": 1 << 20, "Gi": 1 << 30, "m": 1} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				t.Fatalf("quantity %q: %v", s, err)
			}
			return v * mult
		}
	}
	t.Fatalf("quantity %q: not Mi, Gi or m", s)
	return 0
}

// TestKubernetesManifests reads every document of
// assets/kubernetes/dcbtop.yaml and checks what matters: the kinds, a
// DaemonSet on the host network running the read-only exporter (args
// --metrics :PORT --events, the container port PORT named metrics),
// capabilities exactly NET_RAW after dropping ALL, no privilege
// escalation, a read-only root, /sys read-only, every node tolerated,
// probes on /metrics, resources sized from bench/results.md; a headless
// Service selecting the DaemonSet's pods on the port named metrics; a
// ServiceMonitor selecting that Service's labels and port name.
func TestKubernetesManifests(t *testing.T) {
	objs, raws := readManifests(t, "kubernetes/dcbtop.yaml")
	byKind := map[string]*k8sObject{}
	var kinds []string
	for i := range objs {
		o := &objs[i]
		kinds = append(kinds, o.Kind)
		if byKind[o.Kind] != nil {
			t.Errorf("two %s documents", o.Kind)
		}
		byKind[o.Kind] = o
		if o.Metadata.Name != "dcbtop" {
			t.Errorf("%s named %q", o.Kind, o.Metadata.Name)
		}
		if o.Kind != "Namespace" && o.Metadata.Namespace != "dcbtop" {
			t.Errorf("%s in namespace %q, want dcbtop", o.Kind, o.Metadata.Namespace)
		}
	}
	if want := []string{"Namespace", "DaemonSet", "Service", "ServiceMonitor"}; !slices.Equal(kinds, want) {
		t.Fatalf("documents %v, want %v", kinds, want)
	}
	for kind, api := range map[string]string{"Namespace": "v1", "DaemonSet": "apps/v1", "Service": "v1", "ServiceMonitor": "monitoring.coreos.com/v1"} {
		if byKind[kind].APIVersion != api {
			t.Errorf("%s: apiVersion %q, want %s", kind, byKind[kind].APIVersion, api)
		}
	}

	ds := byKind["DaemonSet"]
	pod := ds.Spec.Template.Spec
	podLabels := ds.Spec.Template.Metadata.Labels
	if !matches(ds.Spec.Selector.MatchLabels, podLabels) {
		t.Errorf("the DaemonSet's selector %v does not select its pods %v", ds.Spec.Selector.MatchLabels, podLabels)
	}
	if !pod.HostNetwork || pod.DNSPolicy != "ClusterFirstWithHostNet" {
		t.Errorf("hostNetwork %v dnsPolicy %q, want true and ClusterFirstWithHostNet", pod.HostNetwork, pod.DNSPolicy)
	}
	if len(pod.Tolerations) != 1 || pod.Tolerations[0].Operator != "Exists" || pod.Tolerations[0].Key != "" {
		t.Errorf("tolerations %+v, want one {operator: Exists} (every node)", pod.Tolerations)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image == "" {
		t.Error("no image")
	}
	if len(c.Args) != 3 || c.Args[0] != "--metrics" || c.Args[2] != "--events" || !strings.HasPrefix(c.Args[1], ":") {
		t.Fatalf("args %q, want --metrics :PORT --events", c.Args)
	}
	port, err := strconv.Atoi(c.Args[1][1:])
	if err != nil || port != 9424 {
		t.Errorf("--metrics %s, want :9424 (docs/fleet.md's port)", c.Args[1])
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != port || c.Ports[0].Name != "metrics" {
		t.Errorf("container ports %+v, want metrics: %d", c.Ports, port)
	}
	sc := c.SecurityContext
	if !slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) || !slices.Equal(sc.Capabilities.Add, []string{"NET_RAW"}) {
		t.Errorf("capabilities drop %v add %v, want drop [ALL] add [NET_RAW]", sc.Capabilities.Drop, sc.Capabilities.Add)
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Privileged == nil || *sc.Privileged {
		t.Error("allowPrivilegeEscalation and privileged must be false")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("readOnlyRootFilesystem must be true")
	}
	// Root: a non-root container gets no added capability (see the
	// manifest's comment); say so explicitly rather than by default.
	if sc.RunAsUser == nil || *sc.RunAsUser != 0 || sc.RunAsNonRoot == nil || *sc.RunAsNonRoot {
		t.Error("runAsUser: 0 and runAsNonRoot: false must be explicit (with NET_RAW alone)")
	}
	for _, a := range c.Args {
		if a == "--agent" {
			t.Error("the DaemonSet runs --agent: it must stay read-only")
		}
	}
	sys := false
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/sys" {
			sys = m.ReadOnly
			for _, v := range pod.Volumes {
				if v.Name == m.Name && v.HostPath.Path != "/sys" {
					t.Errorf("/sys is mounted from %q", v.HostPath.Path)
				}
			}
		}
	}
	if !sys {
		t.Error("/sys is not mounted read-only")
	}
	for name, p := range map[string]*k8sProbe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet.Path != "/metrics" || (p.HTTPGet.Port != "metrics" && p.HTTPGet.Port != port) {
			t.Errorf("%s probe %+v, want httpGet /metrics on the metrics port", name, p)
		}
	}
	// bench/results.md: about 18 MB RSS headless, 20 MB at most.
	r := c.Resources
	if quantity(t, r.Requests["memory"]) < 24<<20 || quantity(t, r.Limits["memory"]) < 48<<20 || quantity(t, r.Limits["memory"]) > 256<<20 {
		t.Errorf("memory requests %s limits %s: want at least 24Mi and 48Mi to 256Mi (RSS about 20 MB)", r.Requests["memory"], r.Limits["memory"])
	}
	if r.Requests["cpu"] == "" || quantity(t, r.Requests["cpu"]) > quantity(t, r.Limits["cpu"]) {
		t.Errorf("cpu requests %q limits %q", r.Requests["cpu"], r.Limits["cpu"])
	}

	svc := byKind["Service"]
	selector := map[string]string{}
	if spec, ok := raws[slices.Index(kinds, "Service")]["spec"].(map[string]any); ok {
		if sel, ok := spec["selector"].(map[string]any); ok {
			for k, v := range sel {
				selector[k], _ = v.(string)
			}
		}
	}
	if !matches(selector, podLabels) {
		t.Errorf("the Service's selector %v does not select the DaemonSet's pods %v", selector, podLabels)
	}
	if svc.Spec.ClusterIP != "None" {
		t.Errorf("clusterIP %q, want None (headless)", svc.Spec.ClusterIP)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "metrics" || svc.Spec.Ports[0].Port != port ||
		(svc.Spec.Ports[0].TargetPort != "metrics" && svc.Spec.Ports[0].TargetPort != port) {
		t.Errorf("the Service's ports %+v, want metrics: %d to the container's", svc.Spec.Ports, port)
	}

	sm := byKind["ServiceMonitor"]
	if !matches(sm.Spec.Selector.MatchLabels, svc.Metadata.Labels) {
		t.Errorf("the ServiceMonitor's selector %v does not select the Service's labels %v", sm.Spec.Selector.MatchLabels, svc.Metadata.Labels)
	}
	if !slices.Equal(sm.Spec.NamespaceSelector.MatchNames, []string{svc.Metadata.Namespace}) {
		t.Errorf("the ServiceMonitor looks in namespaces %v, the Service is in %s", sm.Spec.NamespaceSelector.MatchNames, svc.Metadata.Namespace)
	}
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != svc.Spec.Ports[0].Name || sm.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("the ServiceMonitor's endpoints %+v, want port %s path /metrics", sm.Spec.Endpoints, svc.Spec.Ports[0].Name)
	}
	if n := byKind["Namespace"]; n.Metadata.Name != svc.Metadata.Namespace {
		t.Errorf("the Namespace is %s, the objects are in %s", n.Metadata.Name, svc.Metadata.Namespace)
	}
}

// TestKubernetesDockerfile checks that the Dockerfile beside the
// manifests builds the image from the Debian package (make deb's
// dcbtop_*.deb), runs /usr/bin/dcbtop, and is shipped with it.
func TestKubernetesDockerfile(t *testing.T) {
	b, err := os.ReadFile("kubernetes/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"COPY dcbtop_*.deb ", `ENTRYPOINT ["/usr/bin/dcbtop"]`, "FROM scratch"} {
		if !strings.Contains(s, want) {
			t.Errorf("the Dockerfile has no %q", want)
		}
	}
}
